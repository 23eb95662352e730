//! `load.protocol` and its companions resolved for one cell into a
//! [`ProtocolPlan`], and checked against what the cell's runtime offers
//! (its `protocols`). Every problem names the field where it was written.
use std::path::Path;

use minijinja::Value;

use crate::plan::Collector;
use crate::plan::contract::protocol_plan::{Protocol, ProtocolPlan, Reuse, Trust};
use crate::plan::contract::scratch_plan::{TLS_CA, TLS_CERT, TLS_KEY};
use crate::plan::templating::template::{self, Hints, Vars};
use crate::spec::LoadedSpec;
use crate::spec::keys::protocol::ConnectionSpec;
use crate::spec::model::{LoadSpec, RuntimeSpec};
use crate::spec::values::AxisValue;

/// The axis whose values name a cell's protocol when `load.protocol` is
/// left out.
pub const PROTOCOL_AXIS: &str = "protocol";

/// What one cell's load at `at` (`load`, `scenarios.<name>.load`) speaks;
/// `streams` is `load.streams` already read as a whole number.
#[allow(clippy::too_many_arguments)]
pub fn resolve(
    loaded: &LoadedSpec,
    load: &LoadSpec,
    at: &str,
    env: &minijinja::Environment<'_>,
    vars: &Vars,
    hints: &Hints,
    point: &[(String, AxisValue)],
    streams: Option<u32>,
    problems: &mut Collector,
) -> ProtocolPlan {
    let field = format!("{at}.protocol");
    let written = match &load.protocol {
        Some(text) => match template::render(env, text, vars, hints) {
            Ok(text) => Some((text, field.clone())),
            Err(e) => {
                problems.add(loaded, &field, e.message, e.help);
                None
            }
        },
        None => point
            .iter()
            .find(|(name, _)| name == PROTOCOL_AXIS)
            .map(|(_, v)| (v.to_string(), format!("axes.{PROTOCOL_AXIS}"))),
    };
    let protocol = match written {
        None => Protocol::Http1,
        Some((text, where_)) => Protocol::parse(&text).unwrap_or_else(|| {
            problems.add(
                loaded,
                &where_,
                format!("`{where_}` is `{text}`, not a protocol the load generator speaks"),
                "write http1, https (HTTP/1.1 over TLS), h2 (HTTP/2 over TLS) or h2c \
                 (HTTP/2 without TLS, by prior knowledge)",
            );
            Protocol::Http1
        }),
    };
    let plan = ProtocolPlan {
        protocol,
        streams: streams.unwrap_or(1),
        reuse: match load.connection.unwrap_or_default() {
            ConnectionSpec::KeepAlive => Reuse::KeepAlive,
            ConnectionSpec::New => Reuse::New {
                resumption: load.resumption.unwrap_or(true),
            },
        },
        trust: trust(loaded, load),
    };
    check(loaded, load, at, &plan, problems);
    plan
}

fn trust(loaded: &LoadedSpec, load: &LoadSpec) -> Trust {
    let Some(tls) = &load.tls else {
        return Trust::RunCa;
    };
    match (tls.verify, &tls.ca) {
        (Some(false), _) => Trust::Unverified,
        (_, Some(ca)) => Trust::CaFile(loaded.base_dir.join(ca)),
        _ => Trust::RunCa,
    }
}

/// Combinations that cannot mean what they say.
fn check(
    loaded: &LoadedSpec,
    load: &LoadSpec,
    at: &str,
    plan: &ProtocolPlan,
    problems: &mut Collector,
) {
    let name = plan.protocol.key();
    if plan.streams > 1 && !plan.protocol.is_h2() {
        problems.add(
            loaded,
            &format!("{at}.streams"),
            format!("`{at}.streams` is {} but the protocol is {name}: only HTTP/2 multiplexes streams on a connection", plan.streams),
            "use protocol h2 or h2c with streams, or raise the connections instead",
        );
    }
    if plan.streams > 1 && matches!(plan.reuse, Reuse::New { .. }) {
        problems.add(
            loaded,
            &format!("{at}.streams"),
            format!(
                "`{at}.streams` is {} but `connection: new` opens a connection per request, \
                 which carries one stream",
                plan.streams
            ),
            "leave `streams` out to measure connecting, or keep connections to measure streams",
        );
    }
    if load.resumption.is_some()
        && !(plan.protocol.uses_tls() && matches!(plan.reuse, Reuse::New { .. }))
    {
        problems.add(
            loaded,
            &format!("{at}.resumption"),
            format!("`{at}.resumption` applies to new TLS connections, but this load is {name} with {} connections", connection_words(plan.reuse)),
            "set `connection: new` with protocol https or h2, or leave `resumption` out",
        );
    }
    if load.tls.is_some() && !plan.protocol.uses_tls() {
        problems.add(
            loaded,
            &format!("{at}.tls"),
            format!("`{at}.tls` says whom to trust over TLS, but this load is {name}, without TLS"),
            "use protocol https or h2, or leave `tls` out",
        );
    }
    if let Some(ca) = load.tls.as_ref().and_then(|t| t.ca.as_ref())
        && !loaded.base_dir.join(ca).is_file()
    {
        problems.add(
            loaded,
            &format!("{at}.tls.ca"),
            format!(
                "`{at}.tls.ca` names `{ca}`, which is not a file (relative to the spec's folder)"
            ),
            "give the PEM file of the CA that signed the service's certificate",
        );
    }
}

fn connection_words(reuse: Reuse) -> &'static str {
    match reuse {
        Reuse::KeepAlive => "kept",
        Reuse::New { .. } => "new",
    }
}

/// Refuses a cell of `runtime` whose protocol its `offered` list lacks.
pub fn check_offered(
    loaded: &LoadedSpec,
    runtime: &str,
    offered: &[Protocol],
    asked: Protocol,
    problems: &mut Collector,
) {
    if offered.contains(&asked) {
        return;
    }
    let names: Vec<&str> = offered.iter().map(|p| p.key()).collect();
    problems.add(
        loaded,
        &format!("runtimes.{runtime}.protocols"),
        format!(
            "runtime {runtime} offers {} (its `protocols`), but a cell asks it for {}",
            names.join(", "),
            asked.key()
        ),
        format!(
            "add {} to `runtimes.{runtime}.protocols` if its server speaks it, or leave \
             those cells out with `exclude`",
            asked.key()
        ),
    );
}

/// Whether runtime `rt` lists a protocol over TLS (https, h2) in `protocols`.
pub fn offers_tls(rt: &RuntimeSpec) -> bool {
    (rt.protocols.iter().flatten()).any(|&p| Protocol::from(p).uses_tls())
}

/// The one protocol every cell at `points` (a runtime's, after the
/// filters) speaks, or `None` when it may differ between them (a
/// `protocol` axis with several values there, a templated
/// `load.protocol`, scenarios that disagree). A name that is no protocol
/// counts as plain here; [`resolve`] reports it at its position.
pub fn constant(loaded: &LoadedSpec, points: &[&[(String, AxisValue)]]) -> Option<Protocol> {
    let loads = std::iter::once(&loaded.spec.load).chain(loaded.scenario_loads.values());
    let mut on_axis = (points.iter())
        .filter_map(|p| p.iter().find(|(name, _)| name == PROTOCOL_AXIS))
        .map(|(_, value)| value.to_string());
    let axis_value = on_axis.next();
    let axis_varies = on_axis.any(|v| Some(&v) != axis_value.as_ref());
    let mut found = None;
    for load in loads {
        let protocol = match (&load.protocol, &axis_value) {
            (Some(text), _) if text.contains("{{") || text.contains("{%") => return None,
            (Some(text), _) => Protocol::parse(text).unwrap_or_default(),
            (None, Some(_)) if axis_varies => return None,
            (None, Some(value)) => Protocol::parse(value).unwrap_or_default(),
            (None, None) => Protocol::Http1,
        };
        match found {
            Some(seen) if seen != protocol => return None,
            _ => found = Some(protocol),
        }
    }
    found
}

/// The environment a TLS start gets: where its scratch folder holds the
/// run's certificate, key and CA.
pub fn tls_env(scratch: &Path) -> [(String, String); 3] {
    let file = |name: &str| scratch.join(name).display().to_string();
    [
        ("TLS_CERT_FILE".into(), file(TLS_CERT)),
        ("TLS_KEY_FILE".into(), file(TLS_KEY)),
        ("TLS_CA_FILE".into(), file(TLS_CA)),
    ]
}

/// `{{ tls.cert }}`, `{{ tls.key }}` and `{{ tls.ca }}` for a runtime
/// that serves TLS, in its scratch folder `scratch`.
pub fn set_tls_vars(vars: &mut Vars, scratch: &Path) {
    let file = |name: &str| Value::from(scratch.join(name).display().to_string());
    vars.set_map(
        "tls",
        &[
            ("cert", file(TLS_CERT)),
            ("key", file(TLS_KEY)),
            ("ca", file(TLS_CA)),
        ],
    );
}

/// A trained runtime serving TLS in some cells only would need one trained
/// artifact per kind of start (a Leyden cache trained over TLS holds the
/// TLS stack's classes, one trained without does not): refused.
pub fn check_training(loaded: &LoadedSpec, name: &str, rt: &RuntimeSpec, problems: &mut Collector) {
    if rt.train.is_none() {
        return;
    }
    problems.add(
        loaded,
        &format!("runtimes.{name}.train"),
        format!(
            "runtime `{name}` trains an artifact, but its cells differ in protocol (some over TLS, \
             some not), so they start differently"
        ),
        "a trained artifact belongs to one start: declare one runtime per protocol (e.g. with \
         `extends:`), each with its own `train:` and `protocols`, and select its cells with `include`",
    );
}

/// What HTTP/2 cells cannot carry yet: content checks (`expect` beyond a
/// status, read from HTTP/1.1 answers only) and `seq`/`rand` placeholders
/// (written into HTTP/1.1 requests only). Refused here rather than failing
/// every such cell at its first load. `requests`: each with the spec field
/// it was written at.
pub fn check_requests(
    loaded: &LoadedSpec,
    protocol: Protocol,
    requests: &[(String, &crate::plan::RequestPlan)],
    problems: &mut Collector,
) {
    if !protocol.is_h2() {
        return;
    }
    let name = protocol.key();
    for (at, request) in requests {
        if !request.expect.is_empty() {
            problems.add(
                loaded,
                &format!("{at}.expect"),
                format!(
                    "request `{}` checks its answers' content (`expect`), which the load \
                     generator reads from HTTP/1.1 answers only, but its cells speak {name}",
                    request.name
                ),
                "keep `expect: { status: ... }` alone for HTTP/2 cells, and check the content \
                 with `runner verify`, which reads whole answers over any protocol",
            );
        }
        let dynamic = |text: &str| text.contains("{{ seq }}") || text.contains("{{ rand(");
        if dynamic(&request.path) || request.body.as_deref().is_some_and(dynamic) {
            problems.add(
                loaded,
                at,
                format!(
                    "request `{}` uses `seq` or `rand`, which the load generator writes into \
                     HTTP/1.1 requests only, but its cells speak {name}",
                    request.name
                ),
                "use a fixed path and body for HTTP/2 cells",
            );
        }
    }
}

/// A training on a service host over SSH is sent plain HTTP/1.1 load
/// settings only: one whose runtime serves TLS there is refused.
pub fn check_remote_training(
    loaded: &LoadedSpec,
    name: &str,
    rt: &RuntimeSpec,
    problems: &mut Collector,
) {
    let hosts =
        crate::plan::contract::hosts::Hosts::of(loaded.spec.hosts.as_ref(), &loaded.base_dir);
    let offers_other =
        (rt.protocols.iter().flatten()).any(|&p| Protocol::from(p) != Protocol::Http1);
    if rt.train.is_some() && hosts.service.ssh().is_some() && offers_other {
        problems.add(
            loaded,
            &format!("runtimes.{name}.train"),
            format!(
                "runtime `{name}` trains on the service host over SSH, whose training load is \
                 sent plain HTTP/1.1 settings only for now, but it offers other protocols"
            ),
            "train it on this host (leave `hosts.service` out), or train it over http1 only",
        );
    }
}
