//! The symbol table resolution looks definitions up in: files, definitions
//! by id, by name, by file's top level, by parent, by owner type, each file's
//! imports and each declaration's definitions.
//!
//! A pass over most calls (a new index, a rebuild, a change that reaches
//! most files) reads every row once ([`Loading::Everything`]). A pass over a
//! few calls, and a query, reads only what it asks for, a name or a file at a
//! time, and keeps it ([`Loading::AsAsked`]): a one-file edit of the kernel
//! must not read its millions of definitions. Both answer every lookup with
//! the same ids in the same order; the row-for-row incremental test and the
//! table's own test hold them to it. Must not resolve anything.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use elsa::FrozenMap;
use rusqlite::Connection;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::error::Error;
use crate::evidence::Kind;
use crate::lang::{self, LanguageSpec};
use crate::store::graph::{self as rows, SymbolFilter, SymbolRow};

/// The directory part of a repository path (`""` at the top).
pub(super) fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// How a resolution pass reads the symbol table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loading {
    /// Every definition, import and declaration up front.
    Everything,
    /// Each name, file or definition when first asked for.
    AsAsked,
}

pub(super) struct File {
    pub path: String,
    pub lang: &'static LanguageSpec,
    /// The package the file declares, in a language whose files belong to
    /// the package they declare wherever they lie.
    pub package: Option<String>,
}

pub(super) struct Symbol {
    pub file: i64,
    pub parent: Option<i64>,
    pub kind: Kind,
    /// Interned: many definitions share a name.
    pub name: Rc<str>,
    /// Only for methods outside any class (Rust `impl`, Go receivers): their owner's path.
    pub qualified_name: Option<String>,
    pub bases: Vec<String>,
    /// A declaration (a prototype): its definitions may be elsewhere.
    pub declaration: bool,
    pub start_line: u32,
}

pub(super) struct Import {
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub binding: Option<String>,
    pub target: Option<String>,
}

impl Import {
    /// The local name this import makes visible.
    pub fn binding(&self) -> Option<&str> {
        self.binding.as_deref()
    }
}

/// Name → definitions, in the canonical order (path, line, id).
type Names = FxHashMap<Rc<str>, Vec<i64>>;

type Frozen<K, V> = FrozenMap<K, V, FxBuildHasher>;

/// Method name → methods, of one owner type (filled as asked).
type Methods = Frozen<Rc<str>, Vec<i64>>;

pub(super) struct Table<'c> {
    conn: &'c Connection,
    /// Every row is here: a miss is an answer, not a question for the index.
    complete: bool,
    /// Files are few next to definitions: always all of them.
    pub files: FxHashMap<i64, File>,
    pub file_by_path: FxHashMap<String, i64>,
    pub files_by_dir: FxHashMap<String, Vec<i64>>,
    /// Declared package → its files, by path (see [`File::package`]).
    files_by_package: FxHashMap<String, Vec<i64>>,
    /// Directory → [`Table::package_files`] (filled as asked).
    package_files: Frozen<String, Vec<i64>>,
    /// With [`Loading::Everything`].
    all_symbols: FxHashMap<i64, Symbol>,
    /// With [`Loading::AsAsked`]: each definition once read (`None`: no such row).
    read_symbols: Frozen<i64, Box<Option<Symbol>>>,
    interned: RefCell<FxHashSet<Rc<str>>>,
    by_name: Frozen<Rc<str>, Vec<i64>>,
    /// Names whose definitions' parents were read, all in one query.
    parents_read: RefCell<FxHashSet<Rc<str>>>,
    /// File → its top-level definitions (none of them methods).
    top_level: Frozen<i64, Box<Names>>,
    /// Parent definition → its children (a parent without children has no entry).
    children: Frozen<i64, Box<Names>>,
    /// Owner type name → method name → methods, including Rust `impl` and Go
    /// receiver methods that no class encloses.
    methods_by_owner: Frozen<Rc<str>, Box<Methods>>,
    imports: Frozen<i64, Vec<Import>>,
    /// Declaration → the definitions of the same qualified name in a
    /// language it may be defined in (a header's prototype → the `.c`
    /// function): a call that reaches the declaration runs the definition.
    defined_at: Frozen<i64, Vec<i64>>,
    /// Class-like definitions that name bases, in the canonical order.
    with_bases: OnceCell<Vec<i64>>,
    /// [`Self::with_bases`] by each base's last identifier (a complete table only).
    by_base_name: OnceCell<FxHashMap<Rc<str>, Vec<i64>>>,
    /// The first error reading the index; the pass reports it.
    pub read_error: RefCell<Option<Error>>,
}

impl<'c> Table<'c> {
    /// The files of `dir` and, for those that declare a package, every
    /// file of that package wherever it lies, by path, each once.
    pub fn package_files(&self, dir: &str) -> &[i64] {
        if let Some(found) = self.package_files.get(dir) {
            return found;
        }
        let mut out: Vec<i64> = self.files_by_dir.get(dir).cloned().unwrap_or_default();
        let packages: FxHashSet<&str> = out
            .iter()
            .filter_map(|id| self.files.get(id)?.package.as_deref())
            .collect();
        let here: FxHashSet<i64> = out.iter().copied().collect();
        let mut elsewhere: Vec<i64> = packages
            .into_iter()
            .flat_map(|p| self.files_by_package.get(p).into_iter().flatten().copied())
            .filter(|id| !here.contains(id))
            .collect();
        elsewhere.sort_by(|a, b| self.files[a].path.cmp(&self.files[b].path));
        elsewhere.dedup();
        out.extend(elsewhere);
        self.package_files.insert(dir.to_string(), out)
    }

    /// The files that share `file`'s package scope: its declared package's,
    /// else its directory's.
    pub fn package_peers(&self, file: i64) -> &[i64] {
        let Some(f) = self.files.get(&file) else {
            return &[];
        };
        match &f.package {
            Some(package) => self
                .files_by_package
                .get(package)
                .map_or(&[], Vec::as_slice),
            None => self.package_files(parent_dir(&f.path)),
        }
    }

    pub fn load(conn: &'c Connection, loading: Loading) -> crate::error::Result<Table<'c>> {
        let mut files = FxHashMap::default();
        let mut file_by_path = FxHashMap::default();
        let mut files_by_dir: FxHashMap<String, Vec<i64>> = FxHashMap::default();
        // By path: a package's files in a fixed order, whatever their ids.
        let mut files_by_package: FxHashMap<String, Vec<i64>> = FxHashMap::default();
        rows::for_each_file_by_path(conn, |id, path, lang_name, module| {
            let Some(lang) = lang::by_name(&lang_name) else {
                return;
            };
            files_by_dir
                .entry(parent_dir(&path).to_string())
                .or_default()
                .push(id);
            let declared = lang.package_by_declaration
                && !module.is_empty()
                && module != lang::module_path(lang, &path);
            let package = declared.then_some(module);
            if let Some(package) = &package {
                files_by_package
                    .entry(package.clone())
                    .or_default()
                    .push(id);
            }
            file_by_path.insert(path.clone(), id);
            files.insert(
                id,
                File {
                    path,
                    lang,
                    package,
                },
            );
        })?;
        let mut table = Table {
            conn,
            complete: loading == Loading::Everything,
            files,
            file_by_path,
            files_by_dir,
            files_by_package,
            package_files: Frozen::default(),
            all_symbols: FxHashMap::default(),
            read_symbols: Frozen::default(),
            interned: Default::default(),
            by_name: Frozen::default(),
            top_level: Frozen::default(),
            children: Frozen::default(),
            methods_by_owner: Frozen::default(),
            imports: Frozen::default(),
            defined_at: Frozen::default(),
            with_bases: OnceCell::new(),
            by_base_name: OnceCell::new(),
            parents_read: RefCell::default(),
            read_error: Default::default(),
        };
        if table.complete {
            table.load_everything()?;
        }
        Ok(table)
    }

    fn load_everything(&mut self) -> crate::error::Result<()> {
        let mut symbols =
            FxHashMap::with_capacity_and_hasher(rows::symbol_count(self.conn)?, Default::default());
        rows::for_each_symbol(self.conn, SymbolFilter::All, |row| {
            symbols.insert(row.id, self.symbol_of(row));
        })?;
        self.all_symbols = symbols;
        let mut imports: FxHashMap<i64, Vec<Import>> = FxHashMap::default();
        rows::for_each_import(self.conn, None, |row| {
            imports.entry(row.file).or_default().push(import_of(row));
        })?;
        self.imports = imports.into();
        let mut defined_at: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        rows::for_each_declaration_defined(self.conn, None, |declaration, d, definition, s| {
            if may_be_defined_in(d, s) {
                defined_at.entry(declaration).or_default().push(definition);
            }
        })?;
        self.defined_at = defined_at.into();

        // Every list in the canonical order (path, line, id), as the lazy
        // reads give it: never in the order files happened to be written.
        let mut ids: Vec<i64> = self.all_symbols.keys().copied().collect();
        // A file's place among the paths, once, not a path per comparison.
        let mut paths: Vec<(&str, i64)> = self
            .files
            .iter()
            .map(|(id, f)| (f.path.as_str(), *id))
            .collect();
        paths.sort_unstable();
        let rank: FxHashMap<i64, usize> = paths
            .iter()
            .enumerate()
            .map(|(i, (_, id))| (*id, i))
            .collect();
        ids.sort_by_cached_key(|id| {
            let s = &self.all_symbols[id];
            (rank.get(&s.file).copied(), s.start_line, *id)
        });
        let mut by_name: FxHashMap<Rc<str>, Vec<i64>> = FxHashMap::default();
        let mut children: FxHashMap<i64, Box<Names>> = FxHashMap::default();
        let mut top_level: FxHashMap<i64, Box<Names>> = FxHashMap::default();
        let mut owned: FxHashMap<Rc<str>, FxHashMap<Rc<str>, Vec<i64>>> = FxHashMap::default();
        let mut with_bases = Vec::new();
        for id in ids {
            let s = &self.all_symbols[&id];
            let name = s.name.clone();
            by_name.entry(name.clone()).or_default().push(id);
            if let Some(p) = s.parent {
                add(children.entry(p).or_default(), &name, id);
            }
            if s.kind.is_class_like() && !s.bases.is_empty() {
                with_bases.push(id);
            }
            if let Some(owner) = self.owner_of(s) {
                add(owned.entry(owner).or_default(), &name, id);
            } else if is_top_level(s) {
                add(top_level.entry(s.file).or_default(), &name, id);
            }
        }
        self.by_name = by_name.into();
        self.children = children.into();
        self.top_level = top_level.into();
        self.methods_by_owner = owned
            .into_iter()
            .map(|(owner, methods)| (owner, Box::new(Frozen::from(methods))))
            .collect();
        self.with_bases = OnceCell::from(with_bases);
        Ok(())
    }

    fn intern(&self, name: &str) -> Rc<str> {
        let mut interned = self.interned.borrow_mut();
        match interned.get(name) {
            Some(n) => n.clone(),
            None => {
                let n: Rc<str> = Rc::from(name);
                interned.insert(n.clone());
                n
            }
        }
    }

    fn symbol_of(&self, row: SymbolRow<'_>) -> Symbol {
        Symbol {
            file: row.file,
            parent: row.parent,
            kind: Kind::parse(row.kind).unwrap_or(Kind::Function),
            name: self.intern(row.name),
            qualified_name: row.owner_path,
            bases: row
                .bases
                .map(|b| b.lines().map(str::to_string).collect())
                .unwrap_or_default(),
            declaration: row.declaration,
            start_line: row.start_line,
        }
    }

    /// Notes the first error reading the index; the lookup answers nothing.
    fn failed<T: Default>(&self, result: crate::error::Result<T>) -> T {
        result.unwrap_or_else(|e| {
            self.read_error.borrow_mut().get_or_insert(e);
            T::default()
        })
    }

    /// Reads the definitions `filter` selects into the table: their ids.
    fn read(&self, filter: SymbolFilter<'_>) -> Vec<i64> {
        let mut ids = Vec::new();
        let result = rows::for_each_symbol(self.conn, filter, |row| {
            let id = row.id;
            if self.read_symbols.get(&id).is_none() {
                self.read_symbols
                    .insert(id, Box::new(Some(self.symbol_of(row))));
            }
            ids.push(id);
        });
        self.failed(result.map(|()| ids))
    }

    pub fn symbol(&self, id: i64) -> Option<&Symbol> {
        if self.complete {
            return self.all_symbols.get(&id);
        }
        if let Some(found) = self.read_symbols.get(&id) {
            return found.as_ref();
        }
        if self.read(SymbolFilter::Id(id)).is_empty() {
            self.read_symbols.insert(id, Box::new(None));
        }
        self.read_symbols.get(&id)?.as_ref()
    }

    /// Every definition named `name`, in the canonical order (path, line, id).
    pub fn named(&self, name: &str) -> &[i64] {
        if let Some(ids) = self.by_name.get(name) {
            return ids;
        }
        if self.complete {
            return &[];
        }
        let ids = self.read(SymbolFilter::Name(name));
        self.by_name.insert(self.intern(name), ids)
    }

    /// Reads every definition of `file`, filling its top level and its parents' children.
    fn read_file(&self, file: i64) {
        // A file read once has its top level (if empty) in `top_level`.
        if self.complete || self.top_level.get(&file).is_some() {
            return;
        }
        let mut top: Names = FxHashMap::default();
        let mut children: FxHashMap<i64, Names> = FxHashMap::default();
        for id in self.read(SymbolFilter::File(file)) {
            let Some(s) = self.symbol(id) else {
                continue;
            };
            if let Some(p) = s.parent {
                add(children.entry(p).or_default(), &s.name, id);
            } else if is_top_level(s) {
                add(&mut top, &s.name, id);
            }
        }
        self.top_level.insert(file, Box::new(top));
        for (parent, names) in children {
            self.children.insert(parent, Box::new(names));
        }
    }

    /// The top-level definitions named `name` in `file`.
    pub fn top(&self, file: i64, name: &str) -> Option<&[i64]> {
        if self.top_level.get(&file).is_none() {
            self.read_file(file);
        }
        self.top_level.get(&file)?.get(name).map(Vec::as_slice)
    }

    /// The definitions named `name` directly inside `parent`.
    pub fn child(&self, parent: i64, name: &str) -> Option<&[i64]> {
        if self.children.get(&parent).is_none() && !self.complete {
            // Children are in their parent's file.
            self.read_file(self.symbol(parent)?.file);
        }
        self.children.get(&parent)?.get(name).map(Vec::as_slice)
    }

    /// Methods named `name` of the type named `owner`, by nesting or by
    /// qualified name.
    pub fn owned(&self, owner: &str, name: &str) -> Option<&[i64]> {
        let methods = match self.methods_by_owner.get(owner) {
            Some(methods) => methods,
            None if self.complete => return None,
            None => self
                .methods_by_owner
                .insert(self.intern(owner), Box::default()),
        };
        if let Some(ids) = methods.get(name) {
            return (!ids.is_empty()).then_some(ids);
        }
        if self.complete {
            return None;
        }
        // Each candidate's owner is its parent: read them together, not one by one.
        if self.parents_read.borrow_mut().insert(self.intern(name)) {
            self.read(SymbolFilter::ParentsOfNamed(name));
        }
        let ids: Vec<i64> = self
            .named(name)
            .iter()
            .copied()
            .filter(|id| {
                self.symbol(*id)
                    .and_then(|s| self.owner_of(s))
                    .is_some_and(|o| &*o == owner)
            })
            .collect();
        let ids = methods.insert(self.intern(name), ids);
        (!ids.is_empty()).then_some(ids)
    }

    /// The type a method belongs to: the class it is nested in, else (a Rust
    /// `impl`, a Go receiver, C++'s `void Foo::bar() {}`) the type its
    /// qualified name says. Such a method is not in its file's scope by bare name.
    pub fn owner_of(&self, s: &Symbol) -> Option<Rc<str>> {
        let parent = s.parent.and_then(|p| self.symbol(p));
        match parent.filter(|p| p.kind.is_class_like()) {
            Some(class) => Some(class.name.clone()),
            None if s.kind == Kind::Method => self
                .owner_from_qualified(s)
                .map(|owner| self.intern(&owner)),
            None => None,
        }
    }

    /// `Holder` in `crate::store::Holder::new`: the type a free-standing method belongs to.
    pub fn owner_from_qualified(&self, s: &Symbol) -> Option<String> {
        let sep = self.files.get(&s.file)?.lang.separator;
        let mut parts = s.qualified_name.as_deref()?.rsplit(sep);
        parts.next();
        parts.next().map(str::to_string)
    }

    pub fn imports_of(&self, file: i64) -> &[Import] {
        if let Some(found) = self.imports.get(&file) {
            return found;
        }
        if self.complete {
            return &[];
        }
        let mut found = Vec::new();
        let result = rows::for_each_import(self.conn, Some(file), |row| found.push(import_of(row)));
        self.failed(result);
        self.imports.insert(file, found)
    }

    /// The definitions a declaration stands for (empty for a definition).
    pub fn defined_at(&self, id: i64) -> &[i64] {
        if let Some(found) = self.defined_at.get(&id) {
            return found;
        }
        if self.complete || !self.symbol(id).is_some_and(|s| s.declaration) {
            return &[];
        }
        let mut found = Vec::new();
        let result =
            rows::for_each_declaration_defined(self.conn, Some(id), |_, d, definition, s| {
                if may_be_defined_in(d, s) {
                    found.push(definition);
                }
            });
        self.failed(result);
        self.defined_at.insert(id, found)
    }

    /// Class-like definitions that name a base whose last identifier is
    /// `name`, in the canonical order: read from the store one name at a
    /// time, or, when the whole graph is loaded, from all of them at once.
    pub fn based_on_name(&self, name: &str) -> Vec<i64> {
        let ids = if self.complete {
            let by_name = self.by_base_name.get_or_init(|| {
                let mut map: FxHashMap<Rc<str>, Vec<i64>> = FxHashMap::default();
                for &id in self.with_bases() {
                    for base in self.symbol(id).map(|s| &s.bases[..]).unwrap_or_default() {
                        let name = crate::lang::extract::last_identifier(base);
                        map.entry(Rc::from(name)).or_default().push(id);
                    }
                }
                map
            });
            by_name.get(name).cloned().unwrap_or_default()
        } else {
            self.read(SymbolFilter::BaseNamed(name))
        };
        let mut ids: Vec<i64> = ids
            .into_iter()
            .filter(|id| {
                self.symbol(*id)
                    .is_some_and(|s| s.kind.is_class_like() && !s.bases.is_empty())
            })
            .collect();
        ids.dedup();
        ids
    }

    /// Class-like definitions that name bases, in the canonical order.
    fn with_bases(&self) -> &[i64] {
        self.with_bases.get_or_init(|| {
            self.read(SymbolFilter::WithBases)
                .into_iter()
                .filter(|id| {
                    self.symbol(*id)
                        .is_some_and(|s| s.kind.is_class_like() && !s.bases.is_empty())
                })
                .collect()
        })
    }
}

fn add(names: &mut Names, name: &Rc<str>, id: i64) {
    names.entry(name.clone()).or_default().push(id);
}

/// In its file's scope by bare name: not nested, and not a method (a method
/// outside any class has an owner type instead).
fn is_top_level(s: &Symbol) -> bool {
    s.parent.is_none() && s.kind != Kind::Method
}

fn import_of(row: rows::ImportRow) -> Import {
    Import {
        module: row.module,
        name: row.name,
        alias: row.alias,
        binding: row.binding,
        target: row.target,
    }
}

/// Whether a declaration in language `declared_in` may be defined in `defined_in`.
fn may_be_defined_in(declared_in: &str, defined_in: &str) -> bool {
    lang::by_name(declared_in).is_some_and(|l| l.defined_in.contains(&defined_in))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::graph::calls::pass::{Confidence, Graph};
    use crate::lang::imports::Resolver;

    /// A call, its targets, and what it names outside the repository.
    type Resolved = (i64, Vec<(i64, Confidence)>, Option<(String, &'static str)>);

    /// Resolves every call of an index, one pass.
    fn resolve_all(conn: &Connection, resolver: &Resolver, loading: Loading) -> Vec<Resolved> {
        let graph = Graph::load(conn, resolver, loading).unwrap();
        let out = rows::every_call(conn)
            .unwrap()
            .into_iter()
            .map(|call| {
                graph.start_consumer_file(call.file);
                let targets = graph.resolve(call.file, call.enclosing, &call.callee);
                let outside = graph.outside(call.file, call.enclosing, &call.callee);
                (call.id, targets, outside)
            })
            .collect();
        assert!(graph.take_read_error().is_none());
        out
    }

    /// Reading the table as asked resolves every call as reading all of it
    /// does, in every language's fixture and in evident's own Rust and JavaScript:
    /// the same targets in the same order, the same names outside.
    #[test]
    fn loading_as_asked_resolves_like_loading_everything() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut resolved, mut outside) = (0, 0);
        for source in [
            "tests/fixtures/callgraph",
            "tests/fixtures/lang",
            "src",
            "../evident/src",
            "../../web/src",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("repo");
            evident_testkit::fs::copy_dir(&manifest.join(source), &root);
            crate::index_repo(&root, &crate::IndexOptions::default()).unwrap();
            let conn = crate::store::open_for_read(&root).unwrap();
            let paths = rows::all_paths(&conn).unwrap();
            let declared = crate::store::files::declared_packages(&conn).unwrap();
            let resolver = Resolver::new(paths.iter().map(String::as_str), &root, declared);

            let everything = resolve_all(&conn, &resolver, Loading::Everything);
            let as_asked = resolve_all(&conn, &resolver, Loading::AsAsked);
            assert_eq!(everything.len(), as_asked.len());
            for (all, asked) in everything.iter().zip(&as_asked) {
                assert_eq!(
                    all, asked,
                    "{source}: call {} resolves alike both ways",
                    all.0
                );
            }
            resolved += everything.iter().filter(|(_, t, _)| !t.is_empty()).count();
            outside += everything.iter().filter(|(_, _, o)| o.is_some()).count();
        }
        assert!(
            resolved > 1500 && outside > 2000,
            "the sources exercise resolution: {resolved} calls resolved, {outside} outside"
        );
    }
}
