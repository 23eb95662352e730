//! What the worker loop drives, whatever the protocol: a [`Client`] sends
//! one request and reads its answer; a [`Dialer`] opens a worker's
//! connections in the connect phase and hands each its request loops (one
//! per HTTP/1.1 connection, one per stream slot of an HTTP/2 connection).
//! The worker is generic over the dialer, so the loop is compiled per
//! protocol and plain HTTP/1.1's is the same code as before.

use std::rc::Rc;

use crate::load::error::ErrorClass;
use crate::load::http::capture::AnswerSink;
use crate::load::http::connection::{self, Connection, EncodedRequest};
use crate::load::net::dial::Connector;

/// One request loop's connection (or stream slot).
#[allow(async_fn_in_trait)] // driven on one thread's LocalSet: no Send bound wanted
pub trait Client: 'static {
    /// Whether a connection is held (a timeout while not: a connect timeout).
    fn is_connected(&self) -> bool;
    /// Forgets the connection (after a timeout: its state is unknown).
    fn disconnect(&mut self);
    /// Sends `req` (`wire` are its HTTP/1.1 bytes for this send), connecting
    /// first if needed, and reads the answer; returns its status.
    async fn exchange<S: AnswerSink>(
        &mut self,
        req: &EncodedRequest,
        wire: &[u8],
        sink: &mut S,
    ) -> Result<u16, ErrorClass>;
}

/// Opens one worker's connections of one protocol.
#[allow(async_fn_in_trait)]
pub trait Dialer: 'static {
    type Conn: 'static;
    type Client: Client;
    /// One connection, in the connect phase.
    async fn open(&self) -> Result<Self::Conn, ErrorClass>;
    /// The request loops of one connection (None: it failed to open; the
    /// loops connect on their first request).
    fn clients(self: &Rc<Self>, conn: Option<Self::Conn>) -> Vec<Self::Client>;
}

/// HTTP/1.1 over `C`'s streams.
pub struct H1Dialer<C: Connector> {
    pub connector: C,
    /// A new connection per request (the request carries `Connection: close`).
    pub per_request: bool,
}

/// One HTTP/1.1 connection's request loop.
pub struct H1Client<C: Connector> {
    slot: Option<Connection<C::Stream>>,
    dialer: Rc<H1Dialer<C>>,
}

impl<C: Connector> Dialer for H1Dialer<C> {
    type Conn = Connection<C::Stream>;
    type Client = H1Client<C>;

    async fn open(&self) -> Result<Self::Conn, ErrorClass> {
        connection::connect(&self.connector).await
    }

    fn clients(self: &Rc<Self>, conn: Option<Self::Conn>) -> Vec<H1Client<C>> {
        vec![H1Client {
            slot: conn,
            dialer: self.clone(),
        }]
    }
}

impl<C: Connector> Client for H1Client<C> {
    fn is_connected(&self) -> bool {
        self.slot.is_some()
    }

    fn disconnect(&mut self) {
        self.slot = None;
    }

    async fn exchange<S: AnswerSink>(
        &mut self,
        req: &EncodedRequest,
        wire: &[u8],
        sink: &mut S,
    ) -> Result<u16, ErrorClass> {
        let r = connection::exchange(&mut self.slot, &self.dialer.connector, req, wire, sink).await;
        if self.dialer.per_request {
            self.slot = None;
        }
        r
    }
}
