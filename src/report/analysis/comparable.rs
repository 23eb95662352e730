//! Whether two runs can be compared: what differs between their host
//! fingerprints, toolchains, `version:` outputs, spec and `--quick` factor. Read by compare
//! (refused unless `--force`) and by history (runs left out).
use std::collections::BTreeSet;

use crate::results::RunData;

/// What differs between two runs' host fingerprint, toolchains and spec.
pub fn differences(a: &RunData, b: &RunData) -> Vec<String> {
    let mut out = Vec::new();
    let (fa, fb) = (
        a.environment.host.fingerprint(),
        b.environment.host.fingerprint(),
    );
    if fa != fb {
        out.push(format!("host fingerprint: {fa:?} vs {fb:?}"));
    }
    out.extend(crate::results::host_differences(
        &a.environment.hosts,
        &b.environment.hosts,
    ));
    let tools: BTreeSet<&String> = a
        .environment
        .toolchains
        .keys()
        .chain(b.environment.toolchains.keys())
        .collect();
    // A toolchain recorded on one side only was not used there: a run
    // records the toolchains its runtimes use (runs before that recorded
    // every one), and a spec that changed its runtimes differs by its hash.
    for tool in tools {
        if let (Some(ta), Some(tb)) = (
            a.environment.toolchains.get(tool),
            b.environment.toolchains.get(tool),
        ) && ta != tb
        {
            out.push(format!("toolchain {tool}: {ta:?} vs {tb:?}"));
        }
    }
    // A version recorded on one side only was not asked for on the other
    // (a run from before `version:`, or before a `postgres` kind recorded
    // its own); a spec that gained the key differs by its hash below.
    for (subject, va) in &a.environment.versions {
        if let Some(vb) = b.environment.versions.get(subject)
            && va != vb
        {
            out.push(format!("version of {subject}: {va:?} vs {vb:?}"));
        }
    }
    if a.status.spec_hash != b.status.spec_hash {
        out.push(format!(
            "spec hash (sha256 of spec.yaml): {} vs {}",
            a.status.spec_hash, b.status.spec_hash
        ));
    }
    if a.status.quick_factor != b.status.quick_factor {
        let show = |q: Option<u32>| q.map_or("(none)".to_string(), |f| f.to_string());
        out.push(format!(
            "--quick factor: {} vs {} (durations differ)",
            show(a.status.quick_factor),
            show(b.status.quick_factor)
        ));
    }
    out
}
