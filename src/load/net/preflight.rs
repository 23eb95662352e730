//! The check before a run that is not plain HTTP/1.1: one connection made
//! as the run will make them, so a certificate that is not trusted, a port
//! that does not speak TLS, a server that refuses h2 in ALPN or does not
//! speak h2c stops the run at once with a message that says why, instead
//! of a window full of counted failures. A port that refuses TCP is left
//! to the run, which counts it as it does for plain HTTP.
//!
//! Its handshake uses no session cache and is not counted in the report.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::load::config::LoadConfig;
use crate::load::error::LoadError;
use crate::load::net::dial::alpn_name;
use crate::load::net::tls_config::TlsSetup;
use crate::load::net::tls_error::TlsFailure;
use crate::load::transport::Protocol;

/// Checks that `config`'s target speaks its protocol; Ok for plain HTTP/1.1.
pub fn check(config: &LoadConfig, tls: Option<&TlsSetup>) -> Result<(), LoadError> {
    let protocol = config.transport.protocol;
    if protocol == Protocol::Http1 {
        return Ok(());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LoadError::Runtime)?;
    rt.block_on(check_async(config, tls))
}

async fn check_async(config: &LoadConfig, tls: Option<&TlsSetup>) -> Result<(), LoadError> {
    let (addr, timeout) = (config.target, config.timeout);
    let Ok(Ok(tcp)) = tokio::time::timeout(timeout, tokio::net::TcpStream::connect(addr)).await
    else {
        return Ok(());
    };
    let Some(tls) = tls else {
        return h2_answers(tcp, config).await;
    };
    let setup = tls.without_shared_sessions();
    let connector = tokio_rustls::TlsConnector::from(setup.config.clone());
    let handshake = connector.connect(setup.name.clone(), tcp);
    let stream = match tokio::time::timeout(timeout, handshake).await {
        Err(_) => {
            return Err(LoadError::TlsHandshake {
                addr,
                failure: TlsFailure::NoAnswer,
                detail: format!(" (waited {} ms)", timeout.as_millis()),
            });
        }
        Ok(Err(e)) => return Err(handshake_error(config, &e)),
        Ok(Ok(s)) => s,
    };
    let alpn = stream.get_ref().1.alpn_protocol();
    if protocol_needs_h2(config) && alpn != Some(b"h2") {
        return Err(LoadError::AlpnRefused {
            addr,
            got: match alpn {
                Some(_) => format!("it chose {}", alpn_name(alpn)),
                None => "it chose none".into(),
            },
        });
    }
    Ok(())
}

fn protocol_needs_h2(config: &LoadConfig) -> bool {
    config.transport.protocol == Protocol::H2
}

fn handshake_error(config: &LoadConfig, e: &io::Error) -> LoadError {
    let failure = TlsFailure::of(e);
    if failure == TlsFailure::NoApplicationProtocol && protocol_needs_h2(config) {
        return LoadError::AlpnRefused {
            addr: config.target,
            got: "it refused the handshake: no protocol in common".into(),
        };
    }
    let detail = match failure {
        TlsFailure::Refused | TlsFailure::Other => format!(" (rustls: {e})"),
        _ => String::new(),
    };
    LoadError::TlsHandshake {
        addr: config.target,
        failure,
        detail,
    }
}

/// h2c: the HTTP/2 preface and a PING must be answered (an HTTP/1.1-only
/// server answers the preface with a 400 or closes).
async fn h2_answers<T: AsyncRead + AsyncWrite + Unpin + 'static>(
    io: T,
    config: &LoadConfig,
) -> Result<(), LoadError> {
    let (addr, timeout) = (config.target, config.timeout);
    let not_h2c = |detail: String| LoadError::NotH2c { addr, detail };
    let ping = async {
        let (_send, mut conn) = h2::client::handshake(io)
            .await
            .map_err(|e| not_h2c(e.to_string()))?;
        let mut pinger = conn
            .ping_pong()
            .ok_or_else(|| not_h2c("no PING possible".into()))?;
        let driver = async {
            match (&mut conn).await {
                Ok(()) => not_h2c("it closed the connection".into()),
                Err(e) => not_h2c(e.to_string()),
            }
        };
        tokio::select! {
            pong = pinger.ping(h2::Ping::opaque()) => pong.map(|_| ()).map_err(|e| not_h2c(e.to_string())),
            e = driver => Err(e),
        }
    };
    match tokio::time::timeout(timeout.min(Duration::from_secs(10)), ping).await {
        Ok(r) => r,
        Err(_) => Err(not_h2c(format!(
            "no answer to an HTTP/2 PING within {} ms",
            timeout.as_millis()
        ))),
    }
}
