//! Skills: `SKILL.md` files with front matter (`name`, `description`) under
//! `<repo>/.evident/skills/*/` and `~/.config/evident/skills/*/`. Only names
//! and descriptions go into the system prompt; `activate_skill` loads a body.
//! A skill with bad front matter is reported and left out, never fatal.

use std::path::{Path, PathBuf};

use evident_index::{Evidence, Kind};

#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// Shown in evidence: repository-relative for the repository's skills.
    pub display_path: String,
    /// The line the body starts on, after the front matter.
    pub body_start: u32,
    pub body: String,
}

impl Skill {
    pub fn evidence(&self) -> Evidence {
        let lines = self.body.lines().count().max(1) as u32;
        Evidence::new(
            self.display_path.clone(),
            self.body_start,
            self.body_start + lines - 1,
            Kind::Doc,
            self.name.clone(),
            self.body.clone(),
        )
    }
}

/// The skills found, and one message per SKILL.md that could not be read.
#[derive(Debug, Default)]
pub struct Discovered {
    pub skills: Vec<Skill>,
    pub problems: Vec<String>,
}

/// Skills of the repository first; a user skill with the same name is shadowed.
pub fn discover(root: &Path, user_dir: Option<&Path>) -> Discovered {
    let mut found = Discovered::default();
    let mut dirs: Vec<(PathBuf, bool)> = vec![(root.join(".evident").join("skills"), true)];
    if let Some(user) = user_dir {
        dirs.push((user.to_path_buf(), false));
    }
    for (dir, in_repo) in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("SKILL.md"))
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for path in paths {
            let display = if in_repo {
                path.strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/")
            } else {
                path.display().to_string()
            };
            match std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| parse(&t))
            {
                Ok((name, description, body_start, body)) => {
                    if found.skills.iter().any(|s| s.name == name) {
                        found.problems.push(format!(
                            "{display}: skill {name:?} is already defined; this one is ignored"
                        ));
                        continue;
                    }
                    found.skills.push(Skill {
                        name,
                        description,
                        display_path: display,
                        body_start,
                        body,
                    });
                }
                Err(why) => found
                    .problems
                    .push(format!("{display}: {why}; skill ignored")),
            }
        }
    }
    found
}

/// `(name, description, body start line, body)` from a SKILL.md.
fn parse(text: &str) -> Result<(String, String, u32, String), String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("no front matter (the file must start with a --- line)".into());
    }
    let (mut name, mut description) = (None, None);
    let mut consumed = 1u32;
    let mut closed = false;
    for line in lines.by_ref() {
        consumed += 1;
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(format!("front matter line {consumed} is not `key: value`"));
        };
        let value = value
            .trim()
            .trim_matches('"')
            .trim_matches('\'')
            .to_string();
        match key.trim() {
            "name" => name = Some(value),
            "description" => description = Some(value),
            _ => {}
        }
    }
    if !closed {
        return Err("the front matter has no closing --- line".into());
    }
    let name = name
        .filter(|n| !n.is_empty())
        .ok_or("the front matter has no name")?;
    if name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "the name {name:?} must be at most 64 letters, digits, - or _"
        ));
    }
    let description = description
        .filter(|d| !d.is_empty())
        .ok_or("the front matter has no description")?;
    let body: Vec<&str> = lines.collect();
    Ok((name, description, consumed + 1, body.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_required_and_checked() {
        let (name, description, start, body) = parse(
            "---\nname: release\ndescription: \"How we cut a release\"\n---\nStep 1.\nStep 2.\n",
        )
        .unwrap();
        assert_eq!(
            (name.as_str(), description.as_str(), start, body.as_str()),
            ("release", "How we cut a release", 5, "Step 1.\nStep 2.")
        );
        assert!(parse("no front matter")
            .unwrap_err()
            .contains("no front matter"));
        assert!(parse("---\nname: x\n").unwrap_err().contains("no closing"));
        assert!(parse("---\ndescription: d\n---\n")
            .unwrap_err()
            .contains("no name"));
        assert!(parse("---\nname: x\n---\n")
            .unwrap_err()
            .contains("no description"));
        assert!(parse("---\nname: a b\ndescription: d\n---\n")
            .unwrap_err()
            .contains("must be at most 64"));
        assert!(parse("---\nname x\n---\n")
            .unwrap_err()
            .contains("not `key: value`"));
    }
}
