//! The tools over changes, documents and skills.

use evident_index::{DiffRequest, SourcePart};
use serde_json::{Map, Value};

use super::arguments::*;
use super::contract::{ToolContext, ToolError, ToolOutput};
use super::summary::*;

pub(super) fn read_git_diff(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let request = DiffRequest {
        base: text(arguments, "base").map(str::to_string),
        staged: false,
        paths: text(arguments, "path")
            .map(str::to_string)
            .into_iter()
            .collect(),
        impact_depth: 2,
    };
    let report = index.diff(&request).map_err(ToolError::from)?;
    let mut evidence = report.hunks.clone();
    evidence.extend(report.touched.iter().map(|t| t.evidence.clone()));
    // The definitions touched, by name: what "what did the change touch" asks.
    let mut touched: Vec<String> = report
        .touched
        .iter()
        .take(SUMMARY_ITEMS)
        .map(|t| {
            let change = format!("{:?}", t.change).to_lowercase();
            format!("{} ({change})", named_at(&t.evidence))
        })
        .collect();
    if report.touched.len() > SUMMARY_ITEMS {
        touched.push(format!("and {} more", report.touched.len() - SUMMARY_ITEMS));
    }
    let touched = if touched.is_empty() {
        String::new()
    } else {
        format!("; touched: {}", touched.join(", "))
    };
    Ok(ToolOutput {
        summary: format!(
            "{} ({}): {}{touched}",
            report.compared,
            report.files,
            report.risk()
        ),
        evidence,
        whole: false,
    })
}

pub(super) fn list_sources(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let filter = text(arguments, "name_contains").unwrap_or_default();
    Ok(found(
        "documents",
        "",
        index.sources(filter).map_err(ToolError::from)?,
        |ev| format!("{} ({})", ev.path, ev.doc_id.as_deref().unwrap_or("?")),
    ))
}

pub(super) fn read_source(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let index = open(context)?;
    let part = match (
        text(arguments, "section"),
        number(arguments, "start_line"),
        number(arguments, "end_line"),
    ) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(ToolError::Arguments(
                "give either section or start_line/end_line, not both".into(),
            ))
        }
        (Some(section), None, None) => SourcePart::Section(section.to_string()),
        (None, Some(a), Some(b)) => SourcePart::Lines(a as u32, b as u32),
        (None, Some(_), None) | (None, None, Some(_)) => {
            return Err(ToolError::Arguments(
                "a line range needs both start_line and end_line".into(),
            ))
        }
        (None, None, None) => SourcePart::Start,
    };
    let doc_id = text(arguments, "doc_id").unwrap_or_default();
    let evidence = index.source(doc_id, &part).map_err(ToolError::from)?;
    Ok(ToolOutput {
        summary: evidence.location(),
        evidence: vec![evidence],
        whole: true,
    })
}

pub(super) fn activate_skill(
    context: &ToolContext,
    arguments: &Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let name = text(arguments, "name").unwrap_or_default();
    let Some(skill) = context.skills.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = context.skills.iter().map(|s| s.name.as_str()).collect();
        return Err(ToolError::Arguments(format!(
            "no skill is named {name:?}; the skills are: {}",
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        )));
    };
    Ok(ToolOutput {
        summary: format!("skill {} loaded", skill.name),
        evidence: vec![skill.evidence()],
        whole: true,
    })
}
