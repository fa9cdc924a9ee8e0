//! Argument flow: what a function's parameter holds, from the calls of its
//! file that pass it (one level deep, and only for calls in that file).

use std::rc::Rc;

use super::pass::*;
use crate::lang::extract::Binding;
use crate::store::graph as rows;

impl Graph<'_> {
    /// What the parameter at `position` of `function` is given by the calls
    /// of the function in its own file (argument flow): positional and
    /// keyword arguments, one level deep (the calls and their arguments are
    /// evaluated without argument flow, so a recursive function ends).
    /// Only for a call in that same file, so that the calls to resolve again
    /// after an edit stay in one file (`argument_calls`); what depends on it
    /// is remembered for that file's calls only.
    pub(super) fn argument_values(&self, function: i64, position: usize) -> Vec<Value> {
        let Some(f) = self.symbol(function) else {
            return Vec::new();
        };
        // Most functions are not called in their own file: their parameters
        // are bound by nothing, whoever asks (and a new call there is an
        // edit of the file, which resolves all its calls again).
        let sites = self.candidate_sites(function);
        if sites.is_empty() {
            return Vec::new();
        }
        if self.resolving_site.get() {
            self.truncated.set(true); // one level deep: not what a full evaluation gives
            return Vec::new();
        }
        // Depends on the file of the call being resolved.
        self.consumer_bound.set(true);
        if self.consumer_file.get() != Some(f.file) {
            return Vec::new();
        }
        self.note_arguments_used(&self.called_as(function));
        let Some(name) = self.parameter_name(function, position) else {
            return Vec::new();
        };
        let key = (function, Box::from(name.as_str()));
        if let Some(values) = self.argument_cache.borrow().get(&key) {
            return values.clone();
        }
        // A method that takes its receiver first (`self`): a call's
        // arguments start at the second parameter.
        let receiver_first = self
            .parameter_name(function, 0)
            .zip(self.lang_of(f.file))
            .is_some_and(|(first, lang)| lang.self_receivers.contains(&first.as_str()));
        let index = position.checked_sub(usize::from(receiver_first));
        let mut values = Vec::new();
        for (site, arguments) in sites.iter() {
            let Some(argument) = arguments
                .as_deref()
                .and_then(|arguments| argument_for(arguments, &name, index))
            else {
                continue;
            };
            self.without_argument_flow(|| {
                let reaches = self
                    .resolve(site.file, site.enclosing, &site.callee)
                    .iter()
                    .any(|(id, _)| *id == function);
                if reaches {
                    values.extend(self.values_of_expr(site.file, site.enclosing, argument));
                }
            });
        }
        values.sort_unstable();
        values.dedup();
        self.argument_cache.borrow_mut().insert(key, values.clone());
        values
    }

    /// Runs `f` as a call that binds a parameter is resolved: without
    /// argument flow (one level deep), with a fresh depth and cycle check,
    /// and with nothing that holds for one file only, so that what it finds
    /// is the same wherever it is asked, and the evaluation that asks is not cut.
    pub(super) fn without_argument_flow(&self, f: impl FnOnce()) {
        let in_progress = std::mem::take(&mut *self.in_progress.borrow_mut());
        let cut = self.truncated.get();
        let site = self.resolving_site.replace(true);
        self.with_whole_depth(f);
        self.resolving_site.set(site);
        self.truncated.set(cut);
        *self.in_progress.borrow_mut() = in_progress;
    }

    /// The calls in `function`'s file that may call it (by name), with their
    /// arguments; none past [`MAX_ARGUMENT_SITES`]. Read once per pass.
    pub(super) fn candidate_sites(&self, function: i64) -> Rc<Vec<rows::ArgumentSite>> {
        if let Some(found) = self.site_cache.borrow().get(&function) {
            return found.clone();
        }
        let Some(f) = self.symbol(function) else {
            return Rc::default();
        };
        let mut sites = Vec::new();
        for name in self.called_as(function) {
            match rows::calls_named_in(self.conn, f.file, &name, MAX_ARGUMENT_SITES) {
                Ok(found) => sites.extend(found.unwrap_or_default()),
                Err(e) => {
                    self.read_error.borrow_mut().get_or_insert(e);
                }
            }
        }
        let sites = Rc::new(sites);
        self.site_cache.borrow_mut().insert(function, sites.clone());
        sites
    }

    /// The names a call of `function` is written with: its own, and for a
    /// constructor its class's (`Job(a)` runs `Job.__init__(self, a)`).
    fn called_as(&self, function: i64) -> Vec<Rc<str>> {
        let Some(f) = self.symbol(function) else {
            return Vec::new();
        };
        let mut names = vec![f.name.clone()];
        let constructor = self
            .lang_of(f.file)
            .is_some_and(|l| l.constructors.contains(&&*f.name));
        let class = f
            .parent
            .and_then(|p| self.symbol(p))
            .filter(|c| c.kind.is_class_like());
        if let (true, Some(class)) = (constructor, class) {
            names.push(class.name.clone());
        }
        names
    }

    /// A callback's parameter (`argument.parameter.callee`, see
    /// [`Binding::Callback`]): what each function the callee names declares
    /// that parameter of the callback it takes at `argument` to be (a
    /// class: its constructor's).
    pub(super) fn callback_parameter(
        &self,
        file: i64,
        scope: Option<i64>,
        callback: &str,
    ) -> Vec<Value> {
        let mut parts = callback.splitn(3, '.');
        let (Some(Ok(argument)), Some(parameter), Some(callee)) = (
            parts.next().map(str::parse::<usize>),
            parts.next(),
            parts.next(),
        ) else {
            return Vec::new();
        };
        self.deeper(|| {
            let mut out = Vec::new();
            for value in self.values_of_expr(file, scope, callee) {
                let function = match value {
                    Value::Callable(function) => function,
                    Value::Class(class) => self.constructor_of(class),
                    _ => continue,
                };
                let (Some(name), Some(at)) = (
                    self.parameter_name(function, argument),
                    self.symbol(function).map(|f| f.file),
                ) else {
                    continue;
                };
                let declared = format!("{name}({parameter})");
                for stored in self
                    .bound_in(at, Some(function), &declared)
                    .unwrap_or_default()
                {
                    out.extend(self.values_of_binding(at, Some(function), &stored));
                }
            }
            out
        })
    }

    /// The name of the parameter at `position` of `function`.
    pub(super) fn parameter_name(&self, function: i64, position: usize) -> Option<String> {
        let file = self.symbol(function)?.file;
        let wanted = Binding::Parameter.encode(&position.to_string());
        let bindings = self.bindings_of_file(file);
        let names = bindings.get(&Some(function))?;
        names
            .iter()
            .find(|(_, values)| values.iter().any(|v| **v == *wanted))
            .map(|(name, _)| name.clone())
    }
}

/// The argument a call passes for parameter `name` at `index` (after the
/// receiver): its keyword argument, else the positional one, unless a splat
/// comes first.
fn argument_for<'a>(arguments: &'a str, name: &str, index: Option<usize>) -> Option<&'a str> {
    let mut positional = 0;
    let mut found = None;
    for argument in crate::lang::extract::decode_arguments(arguments) {
        if let Some((key, value)) = argument.split_once('=') {
            let keyword = !key.is_empty()
                && key.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !value.starts_with('=');
            if keyword {
                if key == name {
                    return Some(value);
                }
                continue;
            }
        }
        if argument == "*" {
            index.filter(|i| *i >= positional)?;
        }
        if found.is_none() && Some(positional) == index {
            found = Some(argument);
        }
        positional += 1;
    }
    found
}
