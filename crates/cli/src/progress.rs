//! Progress lines on stderr for long fixpoints: when stderr is a terminal, or always with
//! `--progress` (one line per update then, for logs).

use std::io::IsTerminal;
use std::time::Instant;

/// The engines' progress callback.
pub type Progress = Box<dyn FnMut(&str)>;

/// A progress callback for the engines, or `None` when there is nobody to show it to.
pub fn reporter(what: &'static str, forced: bool) -> Option<Progress> {
    let start = Instant::now();
    let line = move |msg: &str| format!("{what}: {msg} ({:.1} s)", start.elapsed().as_secs_f64());
    if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new_spinner();
        return Some(Box::new(move |msg: &str| {
            bar.set_message(line(msg));
            bar.tick();
        }));
    }
    if !forced {
        return None;
    }
    // Not a terminal: plain lines, at most a few per second.
    let mut last: Option<Instant> = None;
    Some(Box::new(move |msg: &str| {
        if !matches!(last, Some(t) if t.elapsed().as_millis() < 250) {
            last = Some(Instant::now());
            eprintln!("{}", line(msg));
        }
    }))
}
