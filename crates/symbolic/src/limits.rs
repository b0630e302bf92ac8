//! Resource limits checked from inside long computations.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A progress callback: engines never print, they send one-line messages here (the CLI
/// decides what to show).
pub type Progress = Box<dyn FnMut(&str) + Send>;

/// Why a computation stopped before finishing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupted {
    #[error("time limit reached")]
    Timeout,
    #[error("memory limit reached")]
    Memory,
    /// A local state index (a token count) too large to store: beyond the dense-node limit
    /// derived from the memory limit, or beyond `u32`.
    #[error("a local state (token count) too large to store was reached")]
    IndexTooLarge,
    /// A decision diagram outgrew its 32-bit node ids, edge offsets or domain sizes.
    #[error("a decision diagram grew past 2^32 nodes or edges")]
    TooManyNodes,
    /// The step budget given to one attempt of a portfolio ran out (never reaches the user).
    #[error("step budget exhausted")]
    Budget,
    /// The caller's cancel flag was raised (another computation answered first).
    #[error("cancelled")]
    Cancelled,
}

/// Time and memory limits. Checked every few thousand steps, so they cost nothing measurable.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub deadline: Option<Instant>,
    /// Resident-set limit in bytes.
    pub max_memory: Option<u64>,
    /// Stop with [`Interrupted::Cancelled`] once this flag is raised (for a race between two
    /// procedures, e.g. generation against a search for an unboundedness witness).
    pub cancel: Option<&'static AtomicBool>,
    /// A second flag like `cancel` (the workers of a portfolio stop each other with it, while
    /// `cancel` stays the race's).
    pub cancel_also: Option<&'static AtomicBool>,
}

impl Limits {
    pub fn none() -> Limits {
        Limits::default()
    }

    /// Is there no limit at all (nothing to check)?
    pub fn is_none(&self) -> bool {
        self.deadline.is_none()
            && self.max_memory.is_none()
            && self.cancel.is_none()
            && self.cancel_also.is_none()
    }

    /// `Err` when a limit is exceeded now.
    pub fn check(&self) -> Result<(), Interrupted> {
        let raised = |c: Option<&AtomicBool>| c.is_some_and(|c| c.load(Ordering::Relaxed));
        if raised(self.cancel) || raised(self.cancel_also) {
            return Err(Interrupted::Cancelled);
        }
        if let Some(d) = self.deadline {
            if Instant::now() >= d {
                return Err(Interrupted::Timeout);
            }
        }
        if let Some(m) = self.max_memory {
            if current_rss_bytes().is_some_and(|r| r > m) {
                return Err(Interrupted::Memory);
            }
        }
        Ok(())
    }
}

impl Limits {
    /// A stop test for the loops of an engine, true once a limit is exceeded and from then on
    /// (see [`latched`]).
    pub fn stopper(&self) -> impl Fn() -> bool + '_ {
        latched(move || self.check().is_err())
    }
}

/// `stop`, latched: once it has answered true, true for good. [`Limits::check`] reads the
/// process's memory anew on each call, so under a memory limit it can fail and then pass
/// again; a loop that broke off on the first answer must not be told later that all is well,
/// or a caller that asks again would take its partial result for a complete one (issue 50).
pub fn latched(stop: impl Fn() -> bool) -> impl Fn() -> bool {
    let fired = Cell::new(false);
    move || {
        if !fired.get() && stop() {
            fired.set(true);
        }
        fired.get()
    }
}

/// The process's resident set size, from `/proc/self/statm` (Linux); `None` elsewhere.
pub fn current_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The resident and peak resident set sizes from `/proc/self/status` (diagnostics only).
pub fn peak_rss_report() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}
