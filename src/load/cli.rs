//! `runner load URL ...`: the standalone load generator, as handy as wrk/oha.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use clap::Args;

pub use crate::load::cli_render::render_text;
use crate::load::config::{Arrival, LoadConfig, RequestSpec, StopCondition};
use crate::load::control::LoadControl;
use crate::load::error::LoadError;
use crate::load::target::{TargetError, TargetPolicy, resolve_target};
use crate::units::{DURATION_HELP, parse_duration};

/// Apply HTTP load (HTTP/1.1, over TLS, or HTTP/2) to one URL and report
/// throughput, errors and latency.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// Target URL, e.g. http://127.0.0.1:8080/api/generated/128 or
    /// https://127.0.0.1:8443/ (this host only unless --allow-remote).
    pub url: String,
    #[command(flatten)]
    pub protocol: crate::load::cli_transport::ProtocolArgs,
    /// Allow a target that is not a loopback address (127.0.0.0/8, ::1): only
    /// for a host you are allowed to load.
    #[arg(long = "allow-remote")]
    pub allow_remote: bool,
    /// Connections kept open (closed loop: requests in flight).
    #[arg(short = 'c', long = "connections", default_value_t = 10)]
    pub connections: usize,
    /// Length of the measured window, e.g. 10s, 500ms, 2m.
    #[arg(short = 'd', long = "duration", value_parser = duration_arg, conflicts_with = "count")]
    pub duration: Option<Duration>,
    /// Stop after this many requests instead of after a duration.
    #[arg(short = 'n', long = "requests")]
    pub count: Option<u64>,
    /// Open loop: a constant total rate in requests per second.
    #[arg(short = 'r', long = "rate")]
    pub rate: Option<f64>,
    /// Open loop: raise the rate linearly from 0 over this long first (e.g.
    /// 2s). Closed loop: start the connections one by one over this long,
    /// from 1 to all, before the warmup and the window (not measured).
    #[arg(long = "ramp", value_parser = duration_arg)]
    pub ramp: Option<Duration>,
    /// Connections opened per second before the run starts (the connect
    /// phase is not measured): 10,000 connections take 5 s at the default.
    #[arg(long = "connect-rate", default_value_t = crate::load::DEFAULT_CONNECT_RATE)]
    pub connect_rate: f64,
    /// Worker threads of the generator.
    #[arg(short = 't', long = "threads", default_value_t = 1)]
    pub threads: usize,
    /// Pin worker threads to these CPUs, e.g. 0 or 0,1.
    #[arg(long = "cpus", value_delimiter = ',')]
    pub cpus: Option<Vec<usize>>,
    /// HTTP method.
    #[arg(short = 'm', long = "method", default_value = "GET")]
    pub method: String,
    /// Extra header 'Name: value' (repeatable).
    #[arg(short = 'H', long = "header")]
    pub headers: Vec<String>,
    /// Request body: a string, or @FILE to read it from a file.
    #[arg(long = "body")]
    pub body: Option<String>,
    /// Status a successful response must have; others count as errors.
    #[arg(long = "expect-status", default_value_t = 200)]
    pub expect_status: u16,
    /// Load applied before the measured window, not recorded.
    #[arg(long = "warmup", value_parser = duration_arg, default_value = "0s")]
    pub warmup: Duration,
    /// Per-request timeout.
    #[arg(long = "timeout", value_parser = duration_arg, default_value = "5s")]
    pub timeout: Duration,
    /// Print the report as JSON.
    #[arg(long = "json")]
    pub json: bool,
    /// Write the latency histograms in HdrHistogram log format to this file.
    #[arg(long = "hlog")]
    pub hlog: Option<PathBuf>,
}

/// What `runner load` can fail with, beyond the run itself.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("invalid URL {url:?}: {what}")]
    Url { url: String, what: String },
    #[error("invalid header {header:?} (-H): expected 'Name: value'")]
    Header { header: String },
    #[error(
        "cannot read the request body from {path}: {cause}; give an existing file after @, or the body itself without @"
    )]
    Body {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot write the latency log to {path}: {cause}")]
    Hlog {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot install the Ctrl-C handler: {0}")]
    Signal(std::io::Error),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The run could not start because the target does not speak what was
    /// asked (TLS, h2 in ALPN, h2c): the URL says where.
    #[error("runner load {url}: {source}")]
    Protocol { url: String, source: LoadError },
}

impl CliError {
    /// The process exit code: 2 when the target was refused (nothing was
    /// sent, the command line must change), 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Target(e) if e.is_refusal() => 2,
            _ => 1,
        }
    }
}

/// Runs `runner load`: builds the configuration, applies the load, prints the report.
pub fn run(args: LoadArgs) -> Result<(), CliError> {
    let config = config_from_args(&args)?;
    let control = LoadControl::new();
    signal_hook::flag::register(signal_hook::consts::SIGINT, control.cancel_flag())
        .map_err(CliError::Signal)?;
    let report = crate::load::run(&config, &control).map_err(|e| match e {
        LoadError::TlsHandshake { .. }
        | LoadError::AlpnRefused { .. }
        | LoadError::NotH2c { .. }
        | LoadError::TlsSetup { .. } => CliError::Protocol {
            url: args.url.clone(),
            source: e,
        },
        e => CliError::Load(e),
    })?;
    if let Some(path) = &args.hlog {
        let write = std::fs::File::create(path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            report.write_hlog(&mut w)?;
            std::io::Write::flush(&mut w)
        });
        write.map_err(|cause| CliError::Hlog {
            path: path.clone(),
            cause,
        })?;
    }
    if args.json {
        let json =
            serde_json::to_string_pretty(&report.summary()).expect("report summary is plain data");
        println!("{json}");
    } else {
        print!("{}", render_text(&args.url, &config, &report));
    }
    Ok(())
}

/// Builds the library configuration from the command line.
pub fn config_from_args(args: &LoadArgs) -> Result<LoadConfig, CliError> {
    let policy = if args.allow_remote {
        TargetPolicy::AllowRemote
    } else {
        TargetPolicy::LoopbackOnly {
            allowed_by: "--allow-remote",
        }
    };
    let (target, host_header, path) = parse_url(&args.url, policy)?;
    let mut headers = Vec::new();
    for h in &args.headers {
        let (k, v) = h
            .split_once(':')
            .ok_or_else(|| CliError::Header { header: h.clone() })?;
        if k.trim().is_empty() {
            return Err(CliError::Header { header: h.clone() });
        }
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let body = match args.body.as_deref() {
        None => None,
        Some(b) => match b.strip_prefix('@') {
            Some(file) => Some(Bytes::from(std::fs::read(file).map_err(|cause| {
                CliError::Body {
                    path: file.into(),
                    cause,
                }
            })?)),
            None => Some(Bytes::from(b.to_string())),
        },
    };
    let arrival = match args.rate {
        Some(rate) => Arrival::Open {
            rate,
            connections: args.connections,
            ramp: args.ramp,
        },
        None => Arrival::Closed {
            connections: args.connections,
        },
    };
    let stop = match (args.count, args.duration) {
        (Some(n), _) => StopCondition::Requests(n),
        (None, Some(d)) => StopCondition::Duration(d),
        (None, None) => StopCondition::Duration(Duration::from_secs(10)),
    };
    let config = LoadConfig {
        target,
        host_header,
        requests: vec![RequestSpec {
            method: args.method.to_ascii_uppercase(),
            path,
            headers,
            body,
            expect_status: args.expect_status,
            weight: None,
            check: None,
        }],
        arrival,
        stop,
        warmup: args.warmup,
        timeout: args.timeout,
        threads: args.threads,
        cpu_affinity: args.cpus.clone(),
        mix_seed: crate::load::DEFAULT_MIX_SEED,
        connect_rate: args.connect_rate,
        connection_ramp: match args.rate {
            Some(_) => Duration::ZERO,
            None => args.ramp.unwrap_or_default(),
        },
        transport: (args.protocol.transport(&args.url)).map_err(|what| CliError::Url {
            url: args.url.clone(),
            what,
        })?,
    };
    config.validate()?;
    Ok(config)
}

/// Splits `http://host[:port][/path]` into the address to connect to (see
/// [`resolve_target`] for which are accepted), the Host header and the
/// request path.
pub fn parse_url(
    url: &str,
    policy: TargetPolicy,
) -> Result<(SocketAddr, String, String), CliError> {
    let bad = |what: &str| CliError::Url {
        url: url.into(),
        what: what.into(),
    };
    let (rest, default_port) = match url.split_once("://") {
        Some(("http", rest)) => (rest, 80),
        Some(("https", rest)) => (rest, 443),
        Some((scheme, _)) => {
            return Err(bad(&format!(
                "scheme {scheme:?} is not supported: use http:// or https:// (with --h2 for HTTP/2 over TLS, --h2c for HTTP/2 without TLS)"
            )));
        }
        None => {
            return Err(bad(
                "expected http://host[:port]/path or https://host[:port]/path",
            ));
        }
    };
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
        Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
        None => (rest, "/".to_string()),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(bad("missing host (user info is not supported)"));
    }
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
        && !authority.ends_with(']')
    {
        authority.to_string()
    } else {
        format!("{authority}:{default_port}")
    };
    let target = resolve_target(&with_port, policy)?;
    Ok((target, authority.to_string(), path))
}

/// Clap's parser for duration flags: the one rule set of
/// [`crate::units::parse_duration`], with the same help as the spec's errors.
fn duration_arg(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|why| format!("{why}; {DURATION_HELP}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: TargetPolicy = TargetPolicy::LoopbackOnly {
        allowed_by: "--allow-remote",
    };

    #[test]
    fn duration_flags_use_the_shared_rules_and_help() {
        assert_eq!(duration_arg("3").unwrap(), Duration::from_secs(3));
        assert_eq!(duration_arg("250us").unwrap(), Duration::from_micros(250));
        assert_eq!(
            duration_arg("10parsecs").unwrap_err(),
            format!("unknown unit `parsecs`; {DURATION_HELP}")
        );
    }

    #[test]
    fn urls() {
        let (addr, host, path) = parse_url("http://127.0.0.1:8080/a/b?c=1", LOCAL).unwrap();
        assert_eq!(addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(host, "127.0.0.1:8080");
        assert_eq!(path, "/a/b?c=1");
        let (addr, _, path) = parse_url("http://127.0.0.1", LOCAL).unwrap();
        assert_eq!((addr.port(), path.as_str()), (80, "/"));
        let (_, _, path) = parse_url("http://127.0.0.1:1?x", LOCAL).unwrap();
        assert_eq!(path, "/?x");
        assert!(
            parse_url("ftp://127.0.0.1/", LOCAL)
                .unwrap_err()
                .to_string()
                .contains("use http://")
        );
        let (addr, _, _) = parse_url("https://127.0.0.1/", LOCAL).unwrap();
        assert_eq!(addr.port(), 443);
        assert!(parse_url("127.0.0.1:80", LOCAL).is_err());
    }

    #[test]
    fn a_remote_url_is_refused_with_exit_2_unless_allowed() {
        let err = parse_url("http://10.255.255.1:9/", LOCAL).unwrap_err();
        assert_eq!(err.exit_code(), 2, "{err}");
        let (addr, _, _) = parse_url("http://10.255.255.1:9/", TargetPolicy::AllowRemote).unwrap();
        assert_eq!(addr, "10.255.255.1:9".parse().unwrap());
        let (addr, _, _) = parse_url("http://[::1]:8080/", LOCAL).unwrap();
        assert_eq!(addr, "[::1]:8080".parse().unwrap());
    }
}
