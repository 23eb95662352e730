//! How a child process ended, in the words error messages and rows use.
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// `exit code 3`, `signal 9 (KILL)`.
pub fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exit code {code}")
    } else if let Some(sig) = status.signal() {
        format!("signal {sig} ({})", signal_name(sig))
    } else {
        format!("{status}")
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "HUP",
        libc::SIGINT => "INT",
        libc::SIGQUIT => "QUIT",
        libc::SIGABRT => "ABRT",
        libc::SIGKILL => "KILL",
        libc::SIGSEGV => "SEGV",
        libc::SIGPIPE => "PIPE",
        libc::SIGTERM => "TERM",
        libc::SIGBUS => "BUS",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_signals_are_named() {
        // A wait status: exit code in the second byte, a signal in the low bits.
        assert_eq!(describe_exit(ExitStatus::from_raw(3 << 8)), "exit code 3");
        assert_eq!(describe_exit(ExitStatus::from_raw(9)), "signal 9 (KILL)");
        assert_eq!(describe_exit(ExitStatus::from_raw(10)), "signal 10 (?)");
    }
}
