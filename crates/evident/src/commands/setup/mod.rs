//! `evident setup CLIENT`: puts `evident mcp` for this repository into an
//! agent client's MCP configuration. It changes only its own entry, keeps a
//! backup of a file it changes, changes nothing when the entry is already
//! there or the file does not parse, and shows the change with `--dry-run`.
//! It writes outside `.evident/` (as `man --out-dir` does) only because a
//! person ran it: no tool a model or client calls can.

mod clients;
mod merge;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use serde_json::{json, Value};

use crate::cli::SetupArgs;
use clients::{Client, CLIENTS};

/// What setting up one client means for this repository.
struct Plan {
    client: &'static Client,
    file: PathBuf,
    name: String,
    command: Vec<String>,
}

pub fn setup(repo: &Option<PathBuf>, json: bool, args: SetupArgs) -> Result<ExitCode> {
    let root = super::query_root(repo)?
        .canonicalize()
        .context("cannot resolve the repository's path")?;
    let Some(client) = args.client.as_deref() else {
        return list(&root, json, args.name.as_deref());
    };
    let client = clients::find(client).ok_or_else(|| {
        let ids: Vec<&str> = CLIENTS.iter().map(|c| c.id).collect();
        anyhow!(
            "invalid argument: unknown client {client:?}; one of: {}",
            ids.join(", ")
        )
    })?;
    let plan = plan(client, &root, args.name.as_deref())?;
    apply(&plan, args.dry_run)
}

fn plan(client: &'static Client, root: &Path, name: Option<&str>) -> Result<Plan> {
    let file = client.file(root).ok_or_else(|| {
        anyhow!(
            "HOME is not set: cannot find {}'s configuration",
            client.title
        )
    })?;
    let exe = std::env::current_exe()
        .and_then(|e| e.canonicalize())
        .context("cannot find this evident's own path")?;
    let text = |p: &Path| {
        p.to_str().map(str::to_string).ok_or_else(|| {
            anyhow!(
                "{} is not UTF-8: a client's configuration cannot name it",
                p.display()
            )
        })
    };
    let command = vec![text(&exe)?, "--repo".into(), text(root)?, "mcp".into()];
    Ok(Plan {
        client,
        file,
        name: name.map_or_else(|| default_name(client, root), str::to_string),
        command,
    })
}

/// `evident` in a project's own file; in the user's file, which every
/// repository shares, `evident-DIRNAME`, so that two repositories' servers
/// do not replace each other.
fn default_name(client: &Client, root: &Path) -> String {
    if !client.is_users() {
        return "evident".into();
    }
    let dir = root
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let slug: String = dir
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("evident-{}", slug.trim_matches('-'))
}

/// The file as it is; `None` when there is none yet.
fn read(file: &Path) -> Result<Option<String>> {
    match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| anyhow!("{} is not UTF-8 text; nothing changed", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", file.display())),
    }
}

fn desired(plan: &Plan) -> Vec<(&'static str, Value)> {
    plan.client.entry_for(&plan.command)
}

fn as_object(fields: &[(&str, Value)]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn apply(plan: &Plan, dry_run: bool) -> Result<ExitCode> {
    let c = plan.client;
    let old = read(&plan.file)?;
    let old_text = old.as_deref().unwrap_or("");
    let refused = |e: merge::Refusal| anyhow!("{}: {e}; nothing changed", plan.file.display());
    let entry = desired(plan);
    let before = merge::existing(c.format, old_text, c.servers_key, &plan.name).map_err(refused)?;
    if before.as_ref() == Some(&as_object(&entry)) {
        outln!(
            "{} is already set up for {} in {} (server {:?}); nothing changed",
            c.title,
            plan.command[2],
            plan.file.display(),
            plan.name
        );
        return Ok(ExitCode::SUCCESS);
    }
    let new = merge::put(
        c.format,
        old_text,
        c.servers_key,
        &plan.name,
        &entry,
        c.new_file,
    )
    .map_err(refused)?;
    let shown = plan.file.display().to_string();
    let diff = similar::TextDiff::from_lines(old_text, &new)
        .unified_diff()
        .header(if old.is_some() { &shown } else { "/dev/null" }, &shown)
        .to_string();
    if dry_run {
        out!("{diff}");
        if !diff.ends_with('\n') {
            outln!();
        }
        errln!("dry run: {} not written", plan.file.display());
        return Ok(ExitCode::SUCCESS);
    }
    let backup = write(&plan.file, old.is_some(), &new)?;
    report(plan, before.as_ref(), backup.as_deref());
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to `file` through a temporary file and a rename (a reader
/// never sees half of it), with the old file's permissions; a file that was
/// there is copied to a backup first. Returns the backup's path.
fn write(file: &Path, existed: bool, text: &str) -> Result<Option<PathBuf>> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let backup = if existed {
        let backup = free_backup_path(file);
        std::fs::copy(file, &backup).with_context(|| {
            format!("cannot back up {} to {}", file.display(), backup.display())
        })?;
        Some(backup)
    } else {
        None
    };
    let temporary = dir.join(format!(
        ".{}.evident-{}",
        file.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&temporary, text)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = std::fs::set_permissions(&temporary, meta.permissions());
    }
    std::fs::rename(&temporary, file).with_context(|| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot replace {}", file.display())
    })?;
    Ok(backup)
}

/// `FILE.bak`, or `FILE.bak.N` for the first N free: no backup is overwritten.
fn free_backup_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    (0..)
        .map(|n| match n {
            0 => file.with_file_name(format!("{name}.bak")),
            n => file.with_file_name(format!("{name}.bak.{n}")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| file.with_file_name(format!("{name}.bak")))
}

fn report(plan: &Plan, before: Option<&Value>, backup: Option<&Path>) {
    let c = plan.client;
    let verb = if before.is_some() {
        "replaced"
    } else {
        "added"
    };
    outln!(
        "{verb} the MCP server {:?} in {}: {}",
        plan.name,
        plan.file.display(),
        shell_words(&plan.command)
    );
    if let Some(backup) = backup {
        outln!("the file as it was: {}", backup.display());
    }
    outln!(
        "{} starts it when it next starts (or reloads its MCP servers).",
        c.title
    );
    if let Some(cli) = c.cli {
        let alternative = cli
            .replace("{name}", &plan.name)
            .replace("{command}", &shell_words(&plan.command));
        outln!("{}'s own command does the same: {alternative}", c.title);
    }
}

/// Words as a POSIX shell reads them back.
fn shell_words(words: &[String]) -> String {
    let quote = |w: &String| {
        let plain = !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c));
        if plain {
            w.clone()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// `evident setup --list`: every client, its file for this repository, and
/// whether this repository's server is in it.
fn list(root: &Path, json: bool, name: Option<&str>) -> Result<ExitCode> {
    let mut rows = Vec::new();
    for client in CLIENTS {
        let plan = plan(client, root, name);
        let state = match &plan {
            Err(e) => format!("unknown ({e})"),
            Ok(plan) => state(plan),
        };
        let file = plan
            .as_ref()
            .map(|p| p.file.display().to_string())
            .unwrap_or_default();
        rows.push(json!({"client": client.id, "title": client.title, "file": file, "state": state, "docs": client.docs}));
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    for row in &rows {
        outln!(
            "{:<12} {:<12} {}  ({})",
            row["client"].as_str().unwrap_or(""),
            row["title"].as_str().unwrap_or(""),
            row["file"].as_str().unwrap_or(""),
            row["state"].as_str().unwrap_or("")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `plan` is done: `set up`, `not set up`, or what stops it.
fn state(plan: &Plan) -> String {
    let c = plan.client;
    let text = match read(&plan.file) {
        Ok(None) => return "not set up: no file yet".into(),
        Ok(Some(text)) => text,
        Err(e) => return format!("{e:#}"),
    };
    match merge::existing(c.format, &text, c.servers_key, &plan.name) {
        Ok(Some(v)) if v == as_object(&desired(plan)) => "set up".into(),
        Ok(Some(_)) => format!("has another server named {:?}", plan.name),
        Ok(None) => "not set up".into(),
        Err(e) => format!("{e}"),
    }
}
