//! Phase timings for the benchmarks.

use std::time::{Duration, Instant};

/// Phase timings on stderr when `EVIDENT_PROFILE` is set (used by the benchmarks).
pub(super) struct Profile {
    enabled: bool,
    last: Instant,
}

impl Profile {
    pub(super) fn new(started: Instant) -> Profile {
        Profile {
            enabled: std::env::var_os("EVIDENT_PROFILE").is_some(),
            last: started,
        }
    }

    pub(super) fn note(&self, name: &str, took: Duration) {
        if self.enabled {
            eprintln!(
                "profile:   of which {name}: {:.1} ms",
                took.as_secs_f64() * 1e3
            );
        }
    }

    pub(super) fn phase(&mut self, name: &str) {
        if self.enabled {
            eprintln!(
                "profile: {name}: {:.1} ms",
                self.last.elapsed().as_secs_f64() * 1e3
            );
        }
        self.last = Instant::now();
    }
}
