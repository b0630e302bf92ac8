//! Progress lines on stderr for long fixpoints (only when stderr is a terminal).

use std::io::IsTerminal;
use std::time::Instant;

/// A progress callback for the engines, or `None` when stderr is not a terminal.
pub fn reporter(what: &'static str) -> Option<Box<dyn FnMut(&str)>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    let start = Instant::now();
    Some(Box::new(move |msg: &str| {
        bar.set_message(format!(
            "{what}: {msg} ({:.1} s)",
            start.elapsed().as_secs_f64()
        ));
        bar.tick();
    }))
}
