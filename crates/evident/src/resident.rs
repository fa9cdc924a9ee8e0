//! What the daemon lends the commands it runs, per thread: the index it
//! holds open and vouches is current, and its memory of the last walk for
//! an index run. Elsewhere both are absent and commands open what they need.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use evident_index::{Index, WalkMemory};

thread_local! {
    static INDEX: RefCell<Option<(PathBuf, Rc<Index>)>> = const { RefCell::new(None) };
    static WALK_MEMORY: RefCell<Option<Arc<Mutex<WalkMemory>>>> = const { RefCell::new(None) };
}

/// The lent index for `root`, if any.
pub fn index_for(root: &Path) -> Option<Rc<Index>> {
    INDEX.with(|r| {
        let lent = r.borrow();
        let (held, index) = lent.as_ref()?;
        let root = root.canonicalize().ok()?;
        (root == *held).then(|| index.clone())
    })
}

/// The walk memory an index run starts from, if any.
pub fn walk_memory() -> Option<Arc<Mutex<WalkMemory>>> {
    WALK_MEMORY.with(|m| m.borrow().clone())
}

/// Runs `command` with `index` lent as the current index of `root`.
pub fn with_index<T>(root: &Path, index: Option<Rc<Index>>, command: impl FnOnce() -> T) -> T {
    INDEX.with(|r| *r.borrow_mut() = index.map(|i| (root.to_path_buf(), i)));
    let result = command();
    INDEX.with(|r| *r.borrow_mut() = None);
    result
}

/// Runs `command` with `memory` lent to its index runs.
pub fn with_walk_memory<T>(
    memory: Option<Arc<Mutex<WalkMemory>>>,
    command: impl FnOnce() -> T,
) -> T {
    WALK_MEMORY.with(|m| *m.borrow_mut() = memory);
    let result = command();
    WALK_MEMORY.with(|m| *m.borrow_mut() = None);
    result
}
