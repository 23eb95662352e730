//! The build stage: commands, logs, the input-hash cache, failures.
mod common;

use common::*;
use runner::build::{BuildCache, BuildError, build_runtime};

#[test]
fn builds_then_skips_until_an_input_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("main.txt"), "v1").unwrap();
    let mut rt = py_runtime("toy", &src, 1, &[("FLAVOR", "plain")]);
    rt.build = vec![
        "mkdir -p build && echo built-$FLAVOR".into(),
        "cat main.txt > build/artifact && echo done >&2".into(),
    ];
    rt.artifact = Some(src.join("build/artifact"));
    let cache = BuildCache::for_experiment(&tmp.path().join("results"));
    let log = tmp.path().join("build-toy.log");

    let first = build_runtime(&rt, &cache, &log).unwrap();
    assert!(!first.cached);
    assert_eq!(first.artifact_bytes, Some(2));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("step 1/2") && text.contains("built-plain") && text.contains("done"),
        "{text}"
    );

    let second = build_runtime(&rt, &cache, &log).unwrap();
    assert!(second.cached, "unchanged inputs are not rebuilt");
    assert_eq!(second.artifact_bytes, Some(2));

    std::fs::write(src.join("main.txt"), "v2-longer").unwrap();
    let third = build_runtime(&rt, &cache, &log).unwrap();
    assert!(!third.cached);
    assert_eq!(third.artifact_bytes, Some(9));

    rt.env.insert("FLAVOR".into(), "spicy".into());
    assert!(
        !build_runtime(&rt, &cache, &log).unwrap().cached,
        "env is an input"
    );

    // Another runtime with the same directory, commands and env (its port
    // aside) shares the build: a JVM runtime and its AOT-cache variant.
    let mut twin = rt.clone();
    twin.name = "toy-twin".into();
    twin.env.insert("PORT".into(), "12345".into());
    assert!(build_runtime(&twin, &cache, &log).unwrap().cached);
    assert!(cache.last_success("toy-twin").is_some());
}

#[test]
fn a_failed_build_names_the_command_and_log_and_is_not_cached() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let mut rt = py_runtime("broken", &src, 1, &[]);
    rt.build = vec!["echo compiling; echo 'error: no such symbol' >&2; exit 4".into()];
    let cache = BuildCache::for_experiment(&tmp.path().join("results"));
    let log = tmp.path().join("build-broken.log");
    let err = build_runtime(&rt, &cache, &log).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, BuildError::CommandFailed(_)));
    assert!(
        text.contains("exit code 4") && text.contains("no such symbol"),
        "{text}"
    );
    assert!(text.contains("build-broken.log"), "{text}");
    assert!(cache.last_success("broken").is_none());
    // Fixed: builds (not skipped), then is cached.
    rt.build = vec!["true".into()];
    assert!(!build_runtime(&rt, &cache, &log).unwrap().cached);
    assert!(build_runtime(&rt, &cache, &log).unwrap().cached);
}

#[test]
fn the_deployable_size_adds_every_shipped_part_and_a_missing_part_fails_the_build() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let mut rt = py_runtime("jar", &src, 1, &[]);
    // a jar and a folder of libs with a link in it: the link counts as itself
    rt.build = vec![
        "mkdir -p target/libs && printf 1234 > target/service.jar && printf 123456 > target/libs/a.jar \
         && ln -sf /etc target/libs/etc-link"
            .into(),
    ];
    rt.artifact = Some(src.join("target/service.jar"));
    rt.deployable = vec![src.join("target/service.jar"), src.join("target/libs")];
    let cache = BuildCache::for_experiment(&tmp.path().join("results"));
    let log = tmp.path().join("build-jar.log");

    let built = build_runtime(&rt, &cache, &log).unwrap();
    assert_eq!(built.artifact_bytes, Some(4));
    let link_len = std::fs::symlink_metadata(src.join("target/libs/etc-link"))
        .unwrap()
        .len();
    assert_eq!(built.deployable_bytes, Some(4 + 6 + link_len));

    rt.deployable.push(src.join("target/missing-image"));
    rt.build.push("true # changed, so it runs again".into());
    match build_runtime(&rt, &cache, &log) {
        Err(e @ BuildError::MissingArtifact { .. }) => {
            assert!(e.to_string().contains("missing-image"), "{e}")
        }
        other => panic!("a missing deployable part must fail the build: {other:?}"),
    }
}
