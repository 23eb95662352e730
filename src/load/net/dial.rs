//! Making one connection: plain TCP, or TCP then a TLS handshake. Each
//! kind is its own type, so the HTTP/1.1 connection over it is compiled
//! for it (no `dyn` stream in the measured loop).

use std::io;
use std::net::SocketAddr;
use std::rc::Rc;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::load::error::ErrorClass;
use crate::load::net::stats::WorkerTransport;
use crate::load::net::tls_config::TlsSetup;
use crate::load::net::tls_error::TlsFailure;

/// Opens connections of one kind to the run's target.
#[allow(async_fn_in_trait)] // used on one thread's LocalSet: no Send bound wanted
pub trait Connector: 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + 'static;
    /// A fresh connection, ready for HTTP; the failure's class otherwise.
    async fn connect(&self) -> Result<Self::Stream, ErrorClass>;
}

/// Plain TCP.
pub struct Tcp {
    pub addr: SocketAddr,
}

impl Connector for Tcp {
    type Stream = TcpStream;

    async fn connect(&self) -> Result<TcpStream, ErrorClass> {
        tcp(self.addr).await
    }
}

/// A TCP connection with NODELAY, its failure classified.
pub async fn tcp(addr: SocketAddr) -> Result<TcpStream, ErrorClass> {
    let stream = TcpStream::connect(addr).await.map_err(|e| match e.kind() {
        io::ErrorKind::ConnectionRefused => ErrorClass::ConnectRefused,
        io::ErrorKind::TimedOut => ErrorClass::ConnectTimeout,
        _ => ErrorClass::Other,
    })?;
    // Without NODELAY, Nagle + delayed ACK add up to 40 ms to small requests.
    stream.set_nodelay(true).map_err(|_| ErrorClass::Other)?;
    Ok(stream)
}

/// TCP, then a TLS handshake; every handshake is counted (full or
/// resumed) and the first one's version, cipher suite and ALPN kept.
pub struct Tls {
    pub addr: SocketAddr,
    pub connector: TlsConnector,
    pub name: ServerName<'static>,
    /// HTTP/2 over TLS: the server must choose `h2` in ALPN.
    pub require_h2: bool,
    pub stats: Rc<WorkerTransport>,
}

impl Tls {
    pub fn new(
        addr: SocketAddr,
        setup: &TlsSetup,
        require_h2: bool,
        stats: Rc<WorkerTransport>,
    ) -> Tls {
        Tls {
            addr,
            connector: TlsConnector::from(setup.config.clone()),
            name: setup.name.clone(),
            require_h2,
            stats,
        }
    }
}

impl Connector for Tls {
    type Stream = TlsStream<TcpStream>;

    async fn connect(&self) -> Result<Self::Stream, ErrorClass> {
        let tcp = tcp(self.addr).await?;
        let tls = (self.connector.connect(self.name.clone(), tcp).await)
            .map_err(|e| ErrorClass::TlsHandshake(TlsFailure::of(&e)))?;
        let session = tls.get_ref().1;
        self.stats.on_handshake(session);
        if self.require_h2 && session.alpn_protocol() != Some(b"h2") {
            return Err(ErrorClass::AlpnRefused);
        }
        Ok(tls)
    }
}

/// The ALPN protocol a session agreed on, in words.
pub fn alpn_name(alpn: Option<&[u8]>) -> String {
    match alpn {
        Some(p) => String::from_utf8_lossy(p).into_owned(),
        None => "none chosen".into(),
    }
}
