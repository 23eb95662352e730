//! TLS and HTTP/2 end to end through the real binary against Debian's
//! nginx (installed by scripts/install-web-servers.sh from .ci/run):
//! the run issues its own certificate, nginx serves it from the start's
//! scratch folder, the generator trusts only the run's CA, and the cells
//! record what was negotiated. The bad inputs fail their cells (or their
//! runtime's start) with what went wrong, while the other cells run; no
//! private key is ever left in the run directory or the temp dir.
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;

/// One test's folders: `dir` (spec and results), `tmpdir` (the runner's
/// TMPDIR, where scratch folders are made) and `srv` (the fixture's nginx
/// configs and site, where a test may add certificates of its own). None,
/// and the test skipped, without nginx.
struct Case {
    tmp: tempfile::TempDir,
    tmpdir: PathBuf,
    srv: PathBuf,
}

impl Case {
    fn new() -> Option<Case> {
        if nginx_missing() {
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        let tmpdir = tmp.path().join("tmp");
        std::fs::create_dir(&tmpdir).unwrap();
        let srv = server_dir(tmp.path());
        Some(Case { tmp, tmpdir, srv })
    }

    fn dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// The fixture's configs and site copied into `dir/srv`.
fn server_dir(dir: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
    let srv = dir.join("srv");
    std::fs::create_dir_all(srv.join("site")).unwrap();
    for entry in std::fs::read_dir(&fixture).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), srv.join(entry.file_name())).unwrap();
        }
    }
    std::fs::copy(fixture.join("site/1k.txt"), srv.join("site/1k.txt")).unwrap();
    srv
}

/// One nginx runtime served from `config`, offering `protocols`.
fn runtime(name: &str, srv: &Path, config: &str, protocols: &str) -> String {
    format!(
        r#"  {name}:
    dir: {srv}
    files: {{ nginx.conf: {config} }}
    start: {NGINX} -e stderr -c {{{{ scratch }}}}/nginx.conf
    health: {{ path: /1k.txt, timeout: 5s }}
    stop: {{ signal: QUIT, grace: 5s }}
    protocols: {protocols}
"#,
        srv = srv.display()
    )
}

/// A spec of `runtimes` over the `protocol` axis `protocols`, with `load`
/// keys added, results in `dir/results`.
fn spec(dir: &Path, runtimes: &[String], protocols: &str, load: &str) -> PathBuf {
    let yaml = format!(
        r#"experiment: {{ name: exec-tls }}
runtimes:
{runtimes}workload: {{ path: /1k.txt }}
axes: {{ protocol: {protocols} }}
# An open loop well below what nginx serves (a closed loop saturates the
# debug-built generator).
load: {{ mode: open, rate: 200, connections: 2, timeout: 2s{load} }}
repeats: 1
warmup: {{ service: 100ms, cell: 100ms }}
measure: {{ duration: 1s }}
startup: {{ repeats: 0 }}
gates: {{ generator_wait: off, littles_law: off }}
results: {dir}/results
"#,
        runtimes = runtimes.concat(),
        dir = dir.display(),
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// Runs `spec` with TMPDIR at `tmpdir` (where scratch folders are made);
/// its exit code and the run folder.
fn exec(dir: &Path, spec: &Path, tmpdir: &Path) -> (Option<i32>, PathBuf, String) {
    let out = runner_within(Duration::from_secs(180))
        .arg("exec")
        .arg(spec)
        .env("TMPDIR", tmpdir)
        .output()
        .unwrap();
    let text = format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("results/exec-tls"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.ends_with(".build-cache"))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}\n{text}");
    (out.status.code(), runs[0].clone(), text)
}

/// Every file under `root` whose bytes hold a PEM private key.
fn private_keys_under(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path).is_ok_and(|b| b.windows(11).any(|w| w == b"PRIVATE KEY"))
            {
                found.push(path);
            }
        }
    }
    found
}

fn row<'r>(
    rows: &'r [std::collections::HashMap<String, String>],
    runtime: &str,
    protocol: &str,
) -> &'r std::collections::HashMap<String, String> {
    rows.iter()
        .find(|r| r["runtime"] == runtime && r["protocol"] == protocol)
        .unwrap_or_else(|| panic!("no {runtime} {protocol} row in {rows:?}"))
}

#[test]
fn nginx_answers_over_http1_https_and_h2_with_the_run_certificate() {
    let Some(case) = Case::new() else {
        return;
    };
    let (dir, tmpdir, srv) = (case.dir(), &case.tmpdir, &case.srv);
    let nginx = runtime("nginx", srv, "nginx.conf.j2", "[http1, https, h2]");
    let spec = spec(
        dir,
        &[nginx],
        "[http1, https, h2]",
        ", streams: \"{{ 2 if protocol == 'h2' else 1 }}\"",
    );
    let (code, run, text) = exec(dir, &spec, tmpdir);
    assert_eq!(code, Some(0), "{text}");

    let rows = measurements(&run);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["errors"], "0", "{r:?}");
        assert!(r["requests"].parse::<u64>().unwrap() > 0, "{r:?}");
    }
    let plain = row(&rows, "nginx", "http1");
    assert_eq!(plain["tls_version"], "", "{plain:?}");
    let https = row(&rows, "nginx", "https");
    assert_eq!(https["alpn"], "http/1.1", "{https:?}");
    assert!(https["tls_version"].starts_with("TLS 1."), "{https:?}");
    assert_eq!(https["tls_verified"], "true", "{https:?}");
    // One handshake per connection (2); the second may resume the first's
    // session or not, as the two happen to overlap.
    let full = https["handshakes_full"].parse::<u64>().unwrap();
    let resumed = https["handshakes_resumed"].parse::<u64>().unwrap();
    assert!(full >= 1 && full + resumed >= 2, "{https:?}");
    let h2 = row(&rows, "nginx", "h2");
    assert_eq!(h2["alpn"], "h2", "{h2:?}");
    assert_eq!(h2["streams"], "2", "{h2:?}");

    // The run keeps the CA it trusted, and no private key anywhere; the
    // scratch folders that held the key are gone.
    let ca = std::fs::read_to_string(run.join("tls/ca.pem")).unwrap();
    assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"), "{ca}");
    assert_eq!(private_keys_under(&run), Vec::<PathBuf>::new());
    let left: Vec<_> = std::fs::read_dir(tmpdir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in the temp dir: {left:?}");
    // The TLS starts were checked ready over TLS (nginx's TLS port answers
    // no plain request), and the start of the plain cell had no certificate.
    let log = std::fs::read_to_string(run.join("logs/nginx.log")).unwrap();
    assert!(!log.contains("PRIVATE KEY"), "{log}");
    // The report says what each configuration negotiated.
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    let protocols = report
        .split("## Protocols")
        .nth(1)
        .expect("a Protocols section");
    assert!(
        protocols.contains("| `nginx/protocol=h2` | h2 | 2 | keep-alive | TLS 1."),
        "{protocols}"
    );
    assert!(!protocols.contains("not verified"), "{protocols}");
}

#[test]
fn a_load_that_verifies_nothing_is_said_so_in_the_report() {
    let Some(case) = Case::new() else {
        return;
    };
    let (dir, tmpdir, srv) = (case.dir(), &case.tmpdir, &case.srv);
    own_certificate(srv, true);
    let runtimes = [runtime(
        "anything",
        srv,
        "nginx-own-cert.conf.j2",
        "[https]",
    )];
    let spec = spec(dir, &runtimes, "[https]", ", tls: { verify: false }");
    let (code, run, text) = exec(dir, &spec, tmpdir);
    assert_eq!(
        code,
        Some(0),
        "an expired certificate of another CA passes unverified\n{text}"
    );
    let row = row(&measurements(&run), "anything", "https").clone();
    assert_eq!(row["tls_verified"], "false", "{row:?}");
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        report.contains("**The server's certificate was not verified** (`load.tls.verify: false`) for `anything/protocol=https`"),
        "{report}"
    );
}

/// A certificate and key for 127.0.0.1 signed by a CA of the test's own,
/// written into `srv` as own-cert.pem and own-key.pem; `expired` backdates
/// it. Returns the CA's PEM.
fn own_certificate(srv: &Path, expired: bool) -> String {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    if expired {
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
    std::fs::write(srv.join("own-cert.pem"), cert.pem()).unwrap();
    std::fs::write(srv.join("own-key.pem"), key.serialize_pem()).unwrap();
    ca.pem()
}

#[test]
fn each_bad_tls_input_fails_its_own_cells_saying_what_went_wrong() {
    let Some(case) = Case::new() else {
        return;
    };
    let (dir, tmpdir, srv) = (case.dir(), &case.tmpdir, &case.srv);
    own_certificate(srv, false);
    let runtimes = [
        runtime("good", srv, "nginx.conf.j2", "[https, h2]"),
        // Offers only http/1.1 in ALPN though it claims h2.
        runtime("no-h2", srv, "nginx-no-h2.conf.j2", "[https, h2]"),
        // Presents a certificate from a CA the run does not trust.
        runtime("other-ca", srv, "nginx-own-cert.conf.j2", "[https, h2]"),
        // Claims TLS but its port speaks plain HTTP.
        runtime("plain", srv, "nginx-plain.conf.j2", "[https, h2]"),
    ];
    let spec = spec(dir, &runtimes, "[https, h2]", "");
    let (code, run, text) = exec(dir, &spec, tmpdir);
    assert_eq!(code, Some(1), "failed cells make exit 1\n{text}");
    let rows = measurements(&run);

    for protocol in ["https", "h2"] {
        let good = row(&rows, "good", protocol);
        assert_eq!(good["status"], "ok", "the other cells run: {good:?}");
    }
    // No silent fall back to HTTP/1.1: the h2 cell fails naming ALPN.
    assert_eq!(row(&rows, "no-h2", "https")["status"], "ok");
    let no_h2 = row(&rows, "no-h2", "h2");
    assert_eq!(no_h2["status"], "failed", "{no_h2:?}");
    assert!(no_h2["reason"].contains("ALPN"), "{no_h2:?}");
    // Another CA: refused as an unknown issuer.
    let other = row(&rows, "other-ca", "https");
    assert_eq!(other["status"], "failed", "{other:?}");
    assert!(
        other["reason"].contains("issuer") || other["reason"].contains("CA"),
        "{other:?}"
    );
    // Plain HTTP on a TLS port: the start is never ready over TLS, and
    // the runtime is skipped saying so.
    let configurations = read_rows(&run.join("configurations.csv"));
    let plain = configurations
        .iter()
        .find(|r| r["runtime"] == "plain")
        .unwrap_or_else(|| panic!("{configurations:?}"));
    assert_eq!(plain["status"], "skipped", "{plain:?}");
    assert!(plain["reason"].contains("does not speak TLS"), "{plain:?}");
    assert_eq!(private_keys_under(&run), Vec::<PathBuf>::new());
}

#[test]
fn an_expired_certificate_fails_the_cell_naming_it() {
    let Some(case) = Case::new() else {
        return;
    };
    let (dir, tmpdir, srv) = (case.dir(), &case.tmpdir, &case.srv);
    let ca = own_certificate(srv, true);
    std::fs::write(dir.join("own-ca.pem"), ca).unwrap();
    let runtimes = [runtime("expired", srv, "nginx-own-cert.conf.j2", "[https]")];
    let trust = format!(", tls: {{ ca: {} }}", dir.join("own-ca.pem").display());
    let spec = spec(dir, &runtimes, "[https]", &trust);
    let (code, run, text) = exec(dir, &spec, tmpdir);
    assert_eq!(code, Some(1), "{text}");
    let expired = row(&measurements(&run), "expired", "https").clone();
    assert_eq!(expired["status"], "failed", "{expired:?}");
    assert!(expired["reason"].contains("expired"), "{expired:?}");
}

#[test]
fn verify_sends_each_runtime_its_own_protocol_and_finds_them_equivalent() {
    let Some(case) = Case::new() else {
        return;
    };
    let (dir, tmpdir, srv) = (case.dir(), &case.tmpdir, &case.srv);
    let runtimes = [
        runtime("over-http1", srv, "nginx-plain.conf.j2", "[http1]"),
        runtime("over-https", srv, "nginx.conf.j2", "[https]"),
        runtime("over-h2", srv, "nginx.conf.j2", "[h2]"),
    ];
    let spec = spec(dir, &runtimes, "[http1, https, h2]", "");
    let mut yaml = std::fs::read_to_string(&spec).unwrap();
    yaml.push_str(
        "exclude:\n\
         \x20 - { runtime: over-http1, protocol: https }\n\
         \x20 - { runtime: over-http1, protocol: h2 }\n\
         \x20 - { runtime: over-https, protocol: http1 }\n\
         \x20 - { runtime: over-https, protocol: h2 }\n\
         \x20 - { runtime: over-h2, protocol: http1 }\n\
         \x20 - { runtime: over-h2, protocol: https }\n\
         verify:\n\
         \x20 - { name: page, path: /1k.txt }\n\
         \x20 - { name: missing, path: /nothing-here.txt, expect_status: 404 }\n",
    );
    std::fs::write(&spec, yaml).unwrap();
    let out = runner_within(Duration::from_secs(120))
        .args(["verify", "--format", "json"])
        .arg(&spec)
        .env("TMPDIR", tmpdir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["equivalent"], true, "{report}");
    let left: Vec<_> = std::fs::read_dir(tmpdir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in the temp dir: {left:?}");
    let folder = std::fs::read_dir(dir.join("results/exec-tls"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("verify-")
        })
        .unwrap();
    assert!(folder.join("tls/ca.pem").is_file());
    assert_eq!(private_keys_under(&folder), Vec::<PathBuf>::new());
}
