//! `runner load` refuses targets off this host unless `--allow-remote`.
//!
//! Every run here happens inside a new network namespace with no routes and
//! its loopback down (`unshare -n`), so even if the check regressed no packet
//! (request or DNS query) could leave the machine.
mod common;

use std::process::{Command, Output};

/// `runner ARGS` inside a fresh, empty network namespace; `None` (with the
/// reason printed) when this host cannot create one (not root, no
/// unshare(1), a container without CAP_SYS_ADMIN).
fn runner_without_network(args: &[&str]) -> Option<Output> {
    match Command::new("unshare").args(["-n", "true"]).output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            eprintln!(
                "SKIPPED: `unshare -n true` failed here ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Err(e) => {
            eprintln!("SKIPPED: cannot run `unshare -n true` here: {e}");
            return None;
        }
    }
    let output = Command::new("timeout")
        .arg("30")
        .args(["unshare", "-n"])
        .arg(common::runner().get_program())
        .args(args)
        .output()
        .expect("runner under unshare");
    Some(output)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_remote_address_is_refused_before_anything_is_sent() {
    let Some(out) = runner_without_network(&["load", "http://10.255.255.1:9/", "-n", "3"]) else {
        return;
    };
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("refusing to send load to 10.255.255.1:9: it is not a loopback address"),
        "{err}"
    );
    assert!(err.contains("--allow-remote"), "{err}");
    assert!(out.stdout.is_empty(), "no report: nothing ran");
}

#[test]
fn a_name_that_does_not_resolve_to_loopback_is_refused() {
    let Some(out) = runner_without_network(&["load", "http://example.invalid/", "-n", "3"]) else {
        return;
    };
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "refusing to send load to `example.invalid:80`: it does not resolve to a loopback address"
        ),
        "{err}"
    );
    assert!(err.contains("--allow-remote"), "{err}");
}

/// The flag is what lets the address through: the same target with it gets
/// as far as connecting, which fails in the empty namespace.
#[test]
fn allow_remote_lets_the_run_reach_connect() {
    let Some(out) = runner_without_network(&[
        "load",
        "http://10.255.255.1:9/",
        "-n",
        "3",
        "--timeout",
        "1s",
        "--allow-remote",
    ]) else {
        return;
    };
    let err = stderr(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!err.contains("refusing"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    // Network unreachable: every request failed to connect.
    assert!(
        report.contains("0 ok") && report.contains("3 errors"),
        "{report}"
    );
    assert!(report.contains("error       other: 3"), "{report}");
}
