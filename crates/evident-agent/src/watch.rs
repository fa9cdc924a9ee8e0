//! A repository's file watcher for long-running processes (the daemon,
//! MCP, the web page; notify, inotify underneath): every changed path
//! outside `.evident/` and `.git/` goes into the walk memory, and a request
//! can wait until each change made before it has been noted. For that the
//! watcher writes a marker file and waits for its event: one inotify queue
//! keeps its order, so the events of earlier writes came first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use evident_index::WalkMemory;
use notify::{Event, EventKind, Watcher};

/// How many of the marker's writes the watcher has seen.
type Seen = Arc<(Mutex<u64>, Condvar)>;

/// How many times the marker was written.
type Written = Arc<AtomicU64>;

/// A watch on a repository, and the marker file it catches up with (one
/// per process, removed when the watch ends).
pub struct Watch {
    _watcher: notify::RecommendedWatcher,
    marker: PathBuf,
    seen: Seen,
    written: Written,
}

impl Watch {
    /// Watches `root`; `on_change` is called after each change is noted.
    /// An error when the system refuses (too many directories for its
    /// inotify limit, say): the caller then checks the files' stat data.
    pub fn start(
        root: &Path,
        memory: Arc<Mutex<WalkMemory>>,
        on_change: impl Fn() + Send + 'static,
    ) -> Result<Watch, notify::Error> {
        let marker = root
            .join(".evident")
            .join(format!("watch.{}", std::process::id()));
        // Its directory is there before the watch starts, so that no event
        // of the marker is lost to a directory the watch has not yet joined.
        let _ = std::fs::create_dir_all(root.join(".evident"));
        let (seen, written): (Seen, Written) = (Arc::default(), Arc::default());
        let handler = {
            let (root, marker) = (root.to_path_buf(), marker.clone());
            let (seen, written) = (seen.clone(), written.clone());
            move |event: notify::Result<Event>| {
                if note(&root, &marker, &memory, (&seen, &written), event) {
                    on_change();
                }
            }
        };
        let started = notify::recommended_watcher(handler).and_then(|mut watcher| {
            watcher.watch(root, notify::RecursiveMode::Recursive)?;
            Ok(watcher)
        });
        Ok(Watch {
            _watcher: started?,
            marker,
            seen,
            written,
        })
    }

    /// Returns once every change made before the call has been noted, or
    /// after `limit`; `false` then.
    pub fn catch_up(&mut self, limit: Duration) -> bool {
        let written = self.written.fetch_add(1, Ordering::SeqCst) + 1;
        if std::fs::write(&self.marker, written.to_string()).is_err() {
            return false;
        }
        let (count, arrived) = &*self.seen;
        let count = count.lock().unwrap_or_else(|e| e.into_inner());
        arrived
            .wait_timeout_while(count, limit, |seen| *seen < written)
            .is_ok_and(|(_, waited)| !waited.timed_out())
    }
}

/// Notes one event; `true` when it changed something that may be indexed.
fn note(
    root: &Path,
    marker: &Path,
    memory: &Mutex<WalkMemory>,
    (seen, written): (&Seen, &Written),
    event: notify::Result<Event>,
) -> bool {
    let own = [root.join(".evident"), root.join(".git")];
    let mut memory = memory.lock().unwrap_or_else(|e| e.into_inner());
    let event = match event {
        Ok(event) if !event.need_rescan() => event,
        _ => {
            // Events were lost, the marker's perhaps too: everything counts
            // as changed, and every write so far as seen.
            memory.lost_track();
            let (count, arrived) = &**seen;
            *count.lock().unwrap_or_else(|e| e.into_inner()) = written.load(Ordering::SeqCst);
            arrived.notify_all();
            return true;
        }
    };
    let mut changed = false;
    for path in &event.paths {
        if path == marker {
            if matches!(
                event.kind,
                EventKind::Access(notify::event::AccessKind::Close(
                    notify::event::AccessMode::Write
                ))
            ) {
                let (count, arrived) = &**seen;
                *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                arrived.notify_all();
            }
            continue;
        }
        if matches!(event.kind, EventKind::Access(_)) || own.iter().any(|o| path.starts_with(o)) {
            continue;
        }
        memory.changed(&evident_index::walk::relative(root, path));
        changed = true;
    }
    changed
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.marker);
    }
}
