//! The golden-file helper every test target uses (tests/common): a missing
//! golden file is an error, never an empty expectation, and UPDATE_GOLDEN
//! writes it instead.
mod common;

use common::{UPDATE_GOLDEN, assert_golden, check_golden};

#[test]
fn a_missing_golden_file_fails_even_against_empty_output() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("never-written.txt");
    // Empty output is what a missing file used to be compared with (defect 4).
    let err = check_golden(&missing, "", false).unwrap_err();
    assert!(err.contains("never-written.txt"), "{err}");
    assert!(err.contains("UPDATE_GOLDEN=1"), "{err}");
    assert!(!missing.exists());
}

#[test]
fn assert_golden_panics_on_a_missing_file() {
    if std::env::var_os(UPDATE_GOLDEN).is_some() {
        eprintln!("SKIPPED: {UPDATE_GOLDEN} is set, so assert_golden writes instead of failing");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("absent.txt");
    let panic = std::panic::catch_unwind(|| assert_golden(&missing, "")).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a formatted panic");
    assert!(message.contains("absent.txt"), "{message}");
}

#[test]
fn update_writes_the_file_then_later_runs_compare_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("new/dir/out.txt");
    check_golden(&path, "one\ntwo\n", true).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    check_golden(&path, "one\ntwo\n", false).unwrap();
    let err = check_golden(&path, "one\nthree\n", false).unwrap_err();
    assert!(err.contains("differs at line 2"), "{err}");
    assert!(
        err.contains("\"two\"") && err.contains("\"three\""),
        "{err}"
    );
    let err = check_golden(&path, "one\ntwo", false).unwrap_err();
    assert!(err.contains("differs at line 3"), "{err}");
}
