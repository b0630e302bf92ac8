//! Running one child process and measuring it: wall time around spawn and exit, peak resident
//! set size from the kernel's accounting (`wait4`'s `ru_maxrss`), with a watchdog that kills the
//! child if it outlives a hard deadline.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// How a child process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// It was terminated by this signal (not by the watchdog).
    Signal(i32),
    /// The watchdog killed it at the hard deadline.
    Killed,
}

/// What one run of a child process did.
#[derive(Clone, Debug)]
pub struct Measured {
    pub exit: Exit,
    /// Wall time from just before the spawn to the child's exit, in seconds.
    pub wall_seconds: f64,
    /// The child's peak resident set size in bytes (including any descendants it waited for).
    pub peak_rss_bytes: u64,
    pub stdout: String,
    pub stderr: String,
}

fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        // A read error only truncates the captured text; the exit status still tells what happened.
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Wait until `pid` has exited, without reaping it (so its pid cannot be reused meanwhile).
fn wait_exited(pid: libc::pid_t) -> anyhow::Result<()> {
    loop {
        // SAFETY: siginfo_t is plain data; waitid only writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: plain system call on our own child's pid with a valid out-pointer.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("waitid on the child process");
        }
    }
}

/// Reap `pid` and return its wait status and resource usage.
fn reap(pid: libc::pid_t) -> anyhow::Result<(libc::c_int, libc::rusage)> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: rusage is plain data; wait4 only writes into it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: plain system call on our own child's pid with valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if r != -1 || err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("wait4 on the child process");
        }
    }
}

/// Run `program args...` with stdin closed, capturing stdout and stderr; kill it if it is still
/// running after `kill_after`.
pub fn run(program: &Path, args: &[String], kill_after: Duration) -> anyhow::Result<Measured> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    let pid = match libc::pid_t::try_from(child.id()) {
        Ok(p) => p,
        Err(_) => bail!("child pid {} out of range", child.id()),
    };
    let out = child.stdout.take().map(read_all);
    let err = child.stderr.take().map(read_all);

    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || match done_rx.recv_timeout(kill_after) {
        Err(mpsc::RecvTimeoutError::Timeout) => {
            // The child is not reaped before this thread is joined, so `pid` is still ours.
            // SAFETY: sending a signal to our own unreaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            true
        }
        _ => false,
    });
    let waited = wait_exited(pid);
    let wall_seconds = start.elapsed().as_secs_f64();
    // The watchdog may have died only if it panicked, which it cannot; a send error is harmless.
    let _ = done_tx.send(());
    let killed = watchdog.join().unwrap_or(false);
    waited?;
    let (status, usage) = reap(pid)?;
    drop(child); // already reaped: dropping a std Child never waits.

    let stdout = out
        .map(|h| h.join().unwrap_or_default())
        .unwrap_or_default();
    let stderr = err
        .map(|h| h.join().unwrap_or_default())
        .unwrap_or_default();
    let exit = if killed {
        Exit::Killed
    } else if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(-1)
    };
    // Linux reports ru_maxrss in KiB.
    let peak_rss_bytes = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    Ok(Measured {
        exit,
        wall_seconds,
        peak_rss_bytes,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, kill_after: f64) -> Measured {
        run(
            Path::new("/bin/sh"),
            &["-c".to_string(), script.to_string()],
            Duration::from_secs_f64(kill_after),
        )
        .unwrap()
    }

    #[test]
    fn captures_output_and_exit_code() {
        let m = sh("echo out; echo err >&2; exit 3", 30.0);
        assert_eq!(m.exit, Exit::Code(3));
        assert_eq!(m.stdout, "out\n");
        assert_eq!(m.stderr, "err\n");
        assert!(m.peak_rss_bytes > 0);
        assert!(m.wall_seconds >= 0.0);
    }

    #[test]
    fn watchdog_kills_a_hung_child() {
        let m = sh("exec sleep 30", 0.2);
        assert_eq!(m.exit, Exit::Killed);
    }

    #[test]
    fn signal_is_reported() {
        let m = sh("kill -TERM $$", 30.0);
        assert_eq!(m.exit, Exit::Signal(libc::SIGTERM));
    }

    #[test]
    fn missing_program_is_an_error() {
        assert!(run(
            Path::new("/nonexistent/saturn"),
            &[],
            Duration::from_secs(1)
        )
        .is_err());
    }
}
