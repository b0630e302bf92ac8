//! Progress lines on stderr for long fixpoints: when stderr is a terminal, or always with
//! `--progress` (one line per update then, for logs).

use std::io::IsTerminal;
use std::time::Instant;

/// The engines' progress callback.
pub type Progress = Box<dyn FnMut(&str) + Send>;

/// The engine's message with the total number of levels: "level 9, ..." becomes "level 9 of
/// 1200, ...".
fn with_total(msg: &str, levels: usize) -> String {
    if let Some(rest) = msg.strip_prefix("level ") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return format!("level {} of {levels}{}", &rest[..digits], &rest[digits..]);
        }
    }
    msg.to_string()
}

/// A progress callback for the engines on a model of `levels` levels, or `None` when there is
/// nobody to show it to.
pub fn reporter(what: &'static str, forced: bool, levels: usize) -> Option<Progress> {
    let start = Instant::now();
    let line = move |msg: &str| {
        format!(
            "{what}: {} ({:.1} s)",
            with_total(msg, levels),
            start.elapsed().as_secs_f64()
        )
    };
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

#[cfg(test)]
mod tests {
    #[test]
    fn level_messages_say_out_of_how_many() {
        assert_eq!(
            super::with_total("level 9, 300 nodes", 1200),
            "level 9 of 1200, 300 nodes"
        );
        assert_eq!(super::with_total("level x", 5), "level x");
        assert_eq!(super::with_total("iteration 3", 5), "iteration 3");
    }
}
