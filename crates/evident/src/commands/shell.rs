//! What the shell and `man` need: completion scripts (clap_complete), man
//! pages (clap_mangen), and the `--color` flag read before clap parses.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, ValueEnum};

use crate::cli::{Cli, ColorWhen};

/// `evident completions SHELL`: the script on standard output.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "evident", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// `evident man --out-dir DIR`: `evident.1` and `evident-COMMAND.1` for each
/// command (what `scripts/build-man` installs).
pub fn man_pages(out_dir: &Path) -> Result<ExitCode> {
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    clap_mangen::generate_to(Cli::command(), out_dir)
        .with_context(|| format!("cannot write man pages into {}", out_dir.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// The last `--color WHEN` or `--color=WHEN` on a command line (before a
/// `--`), so that clap's own help and errors obey it too.
pub fn color_flag(args: impl IntoIterator<Item = OsString>) -> Option<ColorWhen> {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .collect();
    let mut found = None;
    for (i, arg) in args.iter().enumerate() {
        let value = match arg.strip_prefix("--color") {
            Some(rest) if rest.starts_with('=') => Some(&rest[1..]),
            Some("") => args.get(i + 1).map(String::as_str),
            _ => None,
        };
        if let Some(when) = value.and_then(|v| ColorWhen::from_str(v, true).ok()) {
            found = Some(when);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(line: &str) -> Option<ColorWhen> {
        color_flag(line.split(' ').map(OsString::from))
    }

    #[test]
    fn the_last_color_flag_before_a_double_dash_counts() {
        assert_eq!(flag("evident symbol x"), None);
        assert_eq!(
            flag("evident --color never symbol x"),
            Some(ColorWhen::Never)
        );
        assert_eq!(
            flag("evident --color=never symbol x --color always"),
            Some(ColorWhen::Always)
        );
        assert_eq!(flag("evident search -- --color=always"), None);
        assert_eq!(flag("evident --color=sometimes status"), None);
    }
}
