//! `evident probe`: one tool question per protocol (`evident_llm::probe`);
//! which protocols gave a correct call, and which to configure.

use std::path::Path;
use std::process::ExitCode;

use crate::settings::Settings;
use anyhow::{bail, Result};
use evident_llm::{CancelToken, LlmErrorKind, Protocol};

use crate::model::{self, ModelArgs};
use crate::render;

pub fn probe(args: &ModelArgs, root: &Path, json: bool) -> Result<ExitCode> {
    let cancel = CancelToken::new();
    let handler = cancel.clone();
    let _ = ctrlc::set_handler(move || handler.cancel());
    let choice = model::choose(args, &Settings::load(root)?)?;
    let protocols: Vec<Protocol> = match args.protocol {
        Some(p) => vec![p],
        None => Protocol::ALL.to_vec(),
    };
    if !json {
        eprintln!("probing {} at {} …", choice.model, choice.client.endpoint());
    }
    let mut results = Vec::new();
    for protocol in protocols {
        let result = evident_llm::probe(choice.client.as_ref(), &choice.model, protocol, &cancel);
        let kind = result.error.as_ref().map(evident_llm::LlmError::kind);
        if kind == Some(LlmErrorKind::Cancelled) {
            return Err(evident_index::Error::Interrupted.into());
        }
        if !json {
            let configured = protocol == choice.protocol && args.protocol.is_none();
            println!("{}", render::probe_row(&result, configured));
        }
        results.push(result);
        // A server that is not there will not be there for the next protocol either.
        if matches!(
            kind,
            Some(LlmErrorKind::ServerNotRunning | LlmErrorKind::ModelNotFound)
        ) {
            if json {
                println!("{}", render::probe_json(&results));
            }
            let error = results.last().and_then(|r| r.error.as_ref());
            bail!("{}", error.map(ToString::to_string).unwrap_or_default());
        }
    }
    let best = results.iter().find(|r| r.ok).map(|r| r.protocol.name());
    if json {
        println!("{}", render::probe_json(&results));
    } else if let Some(best) = best {
        println!("use --protocol {best} (or [model] protocol = \"{best}\" in evident.toml)");
    }
    Ok(if best.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
