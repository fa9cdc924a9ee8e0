//! One query match's captures, by role, and what each kind of match adds:
//! a definition or scope, an import, a binding, a call. The capture names
//! are documented in `queries/README.md`.

use std::collections::HashMap;

use tree_sitter::{Node, Query, QueryMatch};

use super::facts::{import_binding, Binding, Import, ANY_NAME, DECORATED, ELEMENTS, TYPE_ALIAS};
use super::nesting::{columns_of, end_line_of, wrapper_of, Scoped};
use super::text::{
    arguments_of, clean_docstring, leading_comments, normalize_space, position_skipping,
    signature_of, strip_quotes, MAX_CALLEE_CHARS,
};
use crate::evidence::Kind;
use crate::lang::LanguageSpec;

/// The nodes one match captured, by role.
#[derive(Default)]
pub(super) struct Captures<'t> {
    definition: Option<(Node<'t>, Option<Kind>)>,
    name: Option<Node<'t>>,
    doc: Option<Node<'t>>,
    receiver: Option<Node<'t>>,
    base: Option<Node<'t>>,
    base_of: Option<Node<'t>>,
    package: Option<Node<'t>>,
    import: Option<Node<'t>>,
    modules: Vec<Node<'t>>,
    import_name: Option<Node<'t>>,
    import_alias: Option<Node<'t>>,
    wildcard: bool,
    call: Option<Node<'t>>,
    callee: Option<Node<'t>>,
    object: Option<Node<'t>>,
    method: Option<Node<'t>>,
    arguments: Option<Node<'t>>,
    argument: Option<Node<'t>>,
    assign: Option<Node<'t>>,
    assign_name: Option<Node<'t>>,
    assign_value: Option<(Node<'t>, Binding)>,
    /// A callback's parameter (its position counts) and the argument the
    /// callback is passed as.
    assign_callback: Option<Node<'t>>,
    assign_argument: Option<Node<'t>>,
    /// The value's member a name is bound to (`const { a: foo } = b`).
    assign_key: Option<Node<'t>>,
}

impl<'t> Captures<'t> {
    pub(super) fn read(m: &QueryMatch<'_, 't>, roles: &[Role]) -> Captures<'t> {
        let mut c = Captures::default();
        for capture in m.captures() {
            let node = capture.node;
            match roles[capture.index as usize] {
                Role::Definition(kind) => c.definition = Some((node, Some(kind))),
                Role::Scope => c.definition = Some((node, None)),
                Role::Name => c.name = Some(node),
                Role::Doc => c.doc = Some(node),
                Role::Receiver => c.receiver = Some(node),
                Role::Base => c.base = Some(node),
                Role::BaseOf => c.base_of = Some(node),
                Role::Package => c.package = Some(node),
                Role::Import => c.import = Some(node),
                Role::ImportModule => c.modules.push(node),
                Role::ImportName => c.import_name = Some(node),
                Role::ImportAlias => c.import_alias = Some(node),
                Role::ImportWildcard => c.wildcard = true,
                Role::Call => c.call = Some(node),
                Role::CallCallee => c.callee = Some(node),
                Role::CallObject => c.object = Some(node),
                Role::CallName => c.method = Some(node),
                Role::CallArguments => c.arguments = Some(node),
                Role::CallArgument => c.argument = Some(node),
                Role::Assign => c.assign = Some(node),
                Role::AssignName => c.assign_name = Some(node),
                Role::AssignValue => c.assign_value = Some((node, Binding::CallResult)),
                Role::AssignAlias => c.assign_value = Some((node, Binding::Alias)),
                Role::AssignType => c.assign_value = Some((node, Binding::Type)),
                Role::AssignOpaque => c.assign_value = Some((node, Binding::Opaque)),
                Role::AssignParameter => c.assign_value = Some((node, Binding::Parameter)),
                Role::AssignCallee => c.assign_value = Some((node, Binding::Callback)),
                Role::AssignNames => c.assign_value = Some((node, Binding::Names)),
                Role::AssignCallback => c.assign_callback = Some(node),
                Role::AssignArgument => c.assign_argument = Some(node),
                Role::AssignKey => c.assign_key = Some(node),
                Role::Ignored => {}
            }
        }
        c
    }
}

/// A call site before nesting is known.
pub(super) struct RawCall {
    pub(super) start_byte: usize,
    pub(super) line: u32,
    pub(super) callee: String,
    pub(super) arguments: Vec<String>,
    /// A bare name that is no call where its function binds it
    /// (`#set! call.unless_bound`).
    pub(super) unless_bound: bool,
}

/// A binding before nesting is known: `(start byte, line, name, stored value)`.
pub(super) type RawAssignment = (usize, u32, String, String);

/// What the matches of one file (or part) found, before nesting.
#[derive(Default)]
pub(super) struct Collected {
    pub(super) scoped: HashMap<usize, Scoped>,
    pub(super) imports: Vec<RawImport>,
    pub(super) calls: Vec<RawCall>,
    pub(super) assignments: Vec<RawAssignment>,
    /// A package the file declares (`@package`), over its path's module.
    pub(super) package: Option<String>,
    /// `@base.of`: bases matched apart from their definition's own pattern.
    pub(super) bases_of: Vec<(usize, String)>,
}

/// The match being read: its text and its pattern's `#set!` settings.
pub(super) struct Matched<'a> {
    pub(super) spec: &'a LanguageSpec,
    pub(super) query: &'a Query,
    pub(super) source: &'a str,
    pub(super) pattern: usize,
}

impl Matched<'_> {
    fn text(&self, node: Node) -> &str {
        node.utf8_text(self.source.as_bytes()).unwrap_or("")
    }

    /// `#set! key "value"` on the matched pattern.
    fn setting(&self, key: &str) -> Option<String> {
        self.query
            .property_settings(self.pattern)
            .iter()
            .find(|p| &*p.key == key)
            .and_then(|p| p.value.as_deref().map(str::to_string))
    }
}

impl Collected {
    /// Adds what one match captured.
    pub(super) fn add(&mut self, m: &Matched<'_>, c: &Captures<'_>) {
        if let Some(package) = c.package {
            self.package = Some(m.text(package).to_string());
        }
        if let (Some(owner), Some(base)) = (c.base_of, c.base) {
            let base = normalize_space(m.text(base), MAX_CALLEE_CHARS);
            self.bases_of.push((owner.id(), base));
            return;
        }
        self.definition(m, c);
        self.import(m, c);
        self.assignment(m, c);
        self.call(m, c);
    }

    fn definition(&mut self, m: &Matched<'_>, c: &Captures<'_>) {
        let (Some((node, kind)), Some(name)) = (c.definition, c.name) else {
            return;
        };
        let outer = wrapper_of(m.spec, node);
        let entry = self.scoped.entry(node.id()).or_insert_with(|| Scoped {
            start_byte: outer.start_byte(),
            own_start_byte: node.start_byte(),
            end_byte: outer.end_byte(),
            start_line: outer.start_position().row as u32 + 1,
            end_line: end_line_of(outer),
            columns: columns_of(outer),
            // `#set! definition.name`: a name the syntax does not write
            // (`init`); `definition.name_prefix`: a sigil to drop (`:total`).
            name: m.setting("definition.name").unwrap_or_else(|| {
                let written = m.text(name);
                match m.setting("definition.name_prefix") {
                    Some(sigil) => written.strip_prefix(sigil.as_str()).unwrap_or(written),
                    None => written,
                }
                .to_string()
            }),
            kind,
            doc: None,
            receiver: None,
            bases: Vec::new(),
            signature: signature_of(node, m.source),
            leading_doc: kind.and_then(|_| leading_comments(m.spec, outer, m.source)),
            declaration: false,
        });
        // Any pattern may say so, not only the first (`@overload`).
        entry.declaration |= m.setting("definition.declaration").is_some();
        if let Some(doc) = c.doc {
            entry.doc = Some(clean_docstring(m.text(doc)));
        }
        if let Some(receiver) = c.receiver {
            entry.receiver = Some(m.text(receiver).to_string());
        }
        if let Some(base) = c.base {
            let base = normalize_space(m.text(base), MAX_CALLEE_CHARS);
            if !entry.bases.contains(&base) {
                entry.bases.push(base);
            }
        }
    }

    fn import(&mut self, m: &Matched<'_>, c: &Captures<'_>) {
        let Some(node) = c.import else {
            return;
        };
        let separator = m.spec.separator;
        let mut modules = c.modules.clone();
        modules.sort_by_key(|n| n.start_byte());
        let mut parts: Vec<String> = m.setting("import.module").into_iter().collect();
        parts.extend(modules.iter().map(|n| strip_quotes(m.text(*n)).to_string()));
        // A set prefix ending in `/` marks a path relative to the file
        // (`require_relative`): it is written before the path, not joined.
        if parts.len() > 1 && parts[0].ends_with('/') {
            let prefix = parts.remove(0);
            parts[0].insert_str(0, &prefix);
        }
        let mut name = c
            .import_name
            .map(|n| m.text(n).to_string())
            .or_else(|| m.setting("import.name"))
            .or_else(|| c.wildcard.then(|| "*".to_string()));
        // `#set! import.path KEYWORD`: the captured text after KEYWORD, up
        // to its selectors, is a whole path; without an imported name its
        // last segment is the name (`import a.b.C`).
        if let Some(keyword) = m.setting("import.path") {
            let joined = parts.join(separator);
            let path = joined
                .trim()
                .strip_prefix(keyword.as_str())
                .unwrap_or(&joined);
            let path = path.split(['{', '\n']).next().unwrap_or("").trim();
            let path = path
                .trim_end_matches(['_', '*'])
                .trim_end_matches(separator)
                .to_string();
            parts = vec![path];
            if name.is_none() {
                if let Some((module, last)) = parts[0].rsplit_once(separator) {
                    name = Some(last.to_string());
                    parts = vec![module.to_string()];
                }
            }
        }
        self.imports.push(RawImport {
            node_id: node.id(),
            start_line: node.start_position().row as u32 + 1,
            end_line: end_line_of(node),
            module: parts.join(separator),
            name,
            alias: c.import_alias.map(|a| m.text(a).to_string()),
        });
    }

    fn assignment(&mut self, m: &Matched<'_>, c: &Captures<'_>) {
        let (Some(node), Some((value, binding))) = (c.assign, c.assign_value) else {
            return;
        };
        if m.setting("assign.unpack").is_some() {
            if let Some(target) = c.assign_name {
                self.unpacked(m, node, target, value);
            }
            return;
        }
        let name = match c.assign_name {
            Some(name) => Some(m.text(name).to_string()),
            None => m.setting("assign.name"),
        };
        let Some(mut name) = name else {
            return;
        };
        // `#set! assign.not_positional "this"`: a parameter no call passes.
        let skip = m.setting("assign.not_positional");
        let position = |node| position_skipping(node, skip.as_deref(), m.source);
        // `#set! assign.type "list"`: a literal's type, named by the query.
        let mut value = match m.setting("assign.type") {
            Some(ty) if binding == Binding::Type => ty,
            // A parameter's position among its siblings.
            _ if binding == Binding::Parameter => position(value).to_string(),
            _ if binding == Binding::Names => listed_names(value, m.source),
            // A callback's parameter: `argument.parameter.callee`.
            _ if binding == Binding::Callback => {
                let (Some(argument), Some(parameter)) = (c.assign_argument, c.assign_callback)
                else {
                    return;
                };
                let callee = normalize_space(m.text(value), MAX_CALLEE_CHARS);
                let (argument, parameter) = (position(argument), position(parameter));
                format!("{argument}.{parameter}.{callee}")
            }
            _ => normalize_space(m.text(value), MAX_CALLEE_CHARS),
        };
        // Containers: `#set! assign.element "name"` binds what the
        // elements of `name` hold (`OPS = {"a": f}` binds `OPS[]` to
        // `f`); `"value"` binds a name to the elements of the value
        // (`for step in steps` binds `step` to `steps[]`).
        match m.setting("assign.element").as_deref() {
            Some("name") => name.push_str(ELEMENTS),
            Some("value") => value.push_str(ELEMENTS),
            _ => {}
        }
        // `#set! assign.receiver "this"`: an attribute of the instance
        // (`constructor(private store: Store)` binds `this.store`).
        if let Some(receiver) = m.setting("assign.receiver") {
            name = format!("{receiver}.{name}");
        }
        // A declared function type's parameter: `name(i)` (`init(1)`).
        if let (Binding::Type, Some(parameter)) = (binding, c.assign_callback) {
            name.push_str(&format!("({})", position(parameter)));
        }
        // `#set! assign.member`: the value's member the name is (`const
        // { store } = this` binds `store` to `this.store`); `@assign.key`:
        // the member a key names (`const { a: foo } = b`: `b.a`).
        if let Some(key) = c.assign_key {
            value = format!("{value}.{}", m.text(key));
        } else if m.setting("assign.member").is_some() {
            value = format!("{value}.{name}");
        }
        // `#set! assign.type_alias`: what a type alias stands for.
        if m.setting("assign.type_alias").is_some() {
            name.insert_str(0, TYPE_ALIAS);
        }
        // `#set! assign.decorated`: what the decorated name holds.
        if m.setting("assign.decorated").is_some() {
            name.insert_str(0, DECORATED);
        }
        self.assignments.push((
            node.start_byte(),
            node.start_position().row as u32 + 1,
            name,
            binding.encode(&value),
        ));
    }

    /// `a, b = f, g()` and `a = b = f` (`#set! assign.unpack`): each name
    /// bound to what its position holds ([`super::unpack`]).
    fn unpacked(&mut self, m: &Matched<'_>, node: Node<'_>, target: Node<'_>, value: Node<'_>) {
        for pair in super::unpack::pairs(target, value) {
            let expression = normalize_space(m.text(pair.value), MAX_CALLEE_CHARS);
            self.assignments.push((
                node.start_byte(),
                node.start_position().row as u32 + 1,
                super::unpack::stored_name(m.text(pair.name), &pair),
                pair.binding.encode(&expression),
            ));
        }
    }

    fn call(&mut self, m: &Matched<'_>, c: &Captures<'_>) {
        let Some(node) = c.call else {
            return;
        };
        let callee = match (c.callee, c.object, c.method) {
            (Some(callee), _, _) => m.text(callee).to_string(),
            (None, Some(o), Some(n)) => format!("{}.{}", m.text(o), m.text(n)),
            (None, None, Some(n)) => m.text(n).to_string(),
            _ => return,
        };
        self.calls.push(RawCall {
            start_byte: node.start_byte(),
            line: node.start_position().row as u32 + 1,
            callee: normalize_space(&callee, MAX_CALLEE_CHARS),
            arguments: match (c.arguments, c.argument) {
                (Some(list), _) => arguments_of(list, m.source),
                (None, Some(one)) => vec![normalize_space(m.text(one), MAX_CALLEE_CHARS)],
                (None, None) => Vec::new(),
            },
            unless_bound: m.setting("call.unless_bound").is_some(),
        });
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Definition(Kind),
    Name,
    Doc,
    Receiver,
    Base,
    BaseOf,
    Scope,
    Package,
    Import,
    ImportModule,
    ImportName,
    ImportAlias,
    ImportWildcard,
    Call,
    CallCallee,
    CallObject,
    CallName,
    CallArguments,
    /// The one argument of a call the syntax does not write as a list: the
    /// definition a decorator is applied to.
    CallArgument,
    Assign,
    AssignName,
    AssignValue,
    AssignAlias,
    AssignType,
    AssignOpaque,
    AssignParameter,
    AssignCallee,
    AssignNames,
    AssignCallback,
    AssignArgument,
    AssignKey,
    Ignored,
}

pub(super) fn role_of(capture: &str) -> Role {
    if let Some(kind) = capture.strip_prefix("definition.") {
        return Kind::parse(kind)
            .map(Role::Definition)
            .unwrap_or_else(|| panic!("query uses unknown definition kind {kind:?}"));
    }
    match capture {
        "name" => Role::Name,
        "doc" => Role::Doc,
        "receiver" => Role::Receiver,
        "base" => Role::Base,
        "base.of" => Role::BaseOf,
        "scope" => Role::Scope,
        "package" => Role::Package,
        "import" => Role::Import,
        "import.module" => Role::ImportModule,
        "import.name" => Role::ImportName,
        "import.alias" => Role::ImportAlias,
        "import.wildcard" => Role::ImportWildcard,
        "call" => Role::Call,
        "call.callee" => Role::CallCallee,
        "call.object" => Role::CallObject,
        "call.name" => Role::CallName,
        "call.arguments" => Role::CallArguments,
        "call.argument" => Role::CallArgument,
        "assign" => Role::Assign,
        "assign.name" => Role::AssignName,
        "assign.value" => Role::AssignValue,
        "assign.alias" => Role::AssignAlias,
        "assign.type" => Role::AssignType,
        "assign.opaque" => Role::AssignOpaque,
        "assign.parameter" => Role::AssignParameter,
        "assign.callee" => Role::AssignCallee,
        "assign.names" => Role::AssignNames,
        "assign.callback" => Role::AssignCallback,
        "assign.argument" => Role::AssignArgument,
        "assign.key" => Role::AssignKey,
        other if other.starts_with('_') => Role::Ignored,
        other => panic!("query uses unknown capture @{other}"),
    }
}

pub(super) fn dedup_imports(spec: &LanguageSpec, raw: Vec<RawImport>) -> Vec<Import> {
    // A statement's bare-module match is dropped when the same statement binds names
    // from that module (`import x from './m'` also matches the side-effect pattern).
    let mut bound: std::collections::HashSet<(usize, &str)> = std::collections::HashSet::new();
    for r in &raw {
        if r.name.is_some() || r.alias.is_some() {
            bound.insert((r.node_id, r.module.as_str()));
        }
    }
    let mut out: Vec<Import> = raw
        .iter()
        .filter(|r| {
            r.name.is_some()
                || r.alias.is_some()
                || !bound.contains(&(r.node_id, r.module.as_str()))
        })
        .map(|r| Import {
            start_line: r.start_line,
            end_line: r.end_line,
            module: r.module.clone(),
            name: r.name.clone(),
            alias: r.alias.clone(),
            binding: import_binding(spec, &r.module, r.name.as_deref(), r.alias.as_deref()),
        })
        .collect();
    out.sort_by(|a, b| {
        (a.start_line, &a.module, &a.name, &a.alias).cmp(&(
            b.start_line,
            &b.module,
            &b.name,
            &b.alias,
        ))
    });
    out.dedup();
    out
}

pub(super) struct RawImport {
    pub(super) node_id: usize,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    pub(super) module: String,
    pub(super) name: Option<String>,
    pub(super) alias: Option<String>,
}

/// The names a literal list spells, space-separated: each element a quoted
/// name (comments aside), else [`ANY_NAME`] (`a.__all__ + b.__all__`).
fn listed_names(list: Node, source: &str) -> String {
    let mut names = Vec::new();
    let mut cursor = list.walk();
    for element in list.named_children(&mut cursor).filter(|n| !n.is_extra()) {
        let text = element.utf8_text(source.as_bytes()).unwrap_or("");
        let name = strip_quotes(text);
        let quoted = name.len() + 2 == text.len();
        if !(quoted && crate::lang::syntax::is_identifier(name)) {
            return ANY_NAME.to_string();
        }
        names.push(name);
    }
    names.join(" ")
}
