//! HTTP/2 with the `h2` crate: one connection per [`H2Shared`], `streams`
//! request loops ([`H2Client`]) sharing it, each keeping one stream busy.
//! A connection-level failure (GOAWAY, a broken socket) makes the next
//! loop to send open a new connection for all of them (one per failure:
//! the others wait for it); a stream reset costs only that request.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::rc::Rc;

use bytes::Bytes;
use h2::client::SendRequest;

use crate::load::error::ErrorClass;
use crate::load::http::capture::AnswerSink;
use crate::load::http::connection::EncodedRequest;
use crate::load::net::client::{Client, Dialer};
use crate::load::net::dial::Connector;
use crate::load::net::stats::{H2_CONNECTION_WINDOW, H2_STREAM_WINDOW, WorkerTransport};

/// A live connection: its request handle and whether the server sent GOAWAY.
type Live = (SendRequest<Bytes>, Rc<Cell<bool>>);
/// A connection's handle and its generation (which connection of the slot it is).
type Handle = (u64, Live);

/// HTTP/2 over `C`'s streams (TLS with ALPN h2, or TCP for h2c).
pub struct H2Dialer<C: Connector> {
    pub connector: C,
    pub streams: usize,
    /// A new connection per request (one stream each).
    pub per_request: bool,
    pub stats: Rc<WorkerTransport>,
}

/// One HTTP/2 connection slot, shared by its request loops.
pub struct H2Shared<C: Connector> {
    dialer: Rc<H2Dialer<C>>,
    current: RefCell<Option<Handle>>,
    generation: Cell<u64>,
    /// Held while a new connection is made, so the loops make one.
    connecting: tokio::sync::Mutex<()>,
}

/// One stream slot's request loop.
pub struct H2Client<C: Connector> {
    shared: Rc<H2Shared<C>>,
    handle: Option<Handle>,
    /// The generation that failed under this loop: not to be taken again.
    failed: Option<u64>,
    /// The generation whose stream limit was read.
    limit_read: Option<u64>,
}

/// How one stream failed.
enum Fail {
    /// Not processed by the server, safe to send again: a REFUSED_STREAM
    /// (the connection lives on) or a graceful GOAWAY (it ends).
    Unprocessed {
        connection_ended: bool,
    },
    Class(ErrorClass),
}

/// The class of an `h2` error.
pub fn h2_class(e: &h2::Error) -> ErrorClass {
    if e.is_go_away() {
        ErrorClass::GoAway
    } else if e.is_reset() {
        ErrorClass::StreamReset
    } else if e.is_io() {
        ErrorClass::Reset
    } else {
        ErrorClass::Malformed
    }
}

impl<C: Connector> H2Dialer<C> {
    /// A new HTTP/2 connection; its driver runs as a task of the worker.
    async fn dial(&self) -> Result<Live, ErrorClass> {
        let io = self.connector.connect().await?;
        let (send, conn) = h2::client::Builder::new()
            .initial_window_size(H2_STREAM_WINDOW)
            .initial_connection_window_size(H2_CONNECTION_WINDOW)
            .handshake::<_, Bytes>(io)
            .await
            .map_err(|e| h2_class(&e))?;
        // Its errors reach the streams that were open (and the next send).
        // A server that sends GOAWAY and closes fails the streams it left
        // open with an end of file; the mark lets them count a GOAWAY. It
        // is set in the same poll that fails them, before they run.
        let went_away = Rc::new(Cell::new(false));
        let mark = went_away.clone();
        tokio::task::spawn_local(async move {
            if let Err(e) = conn.await
                && e.is_go_away()
            {
                mark.set(true);
            }
        });
        Ok((send, went_away))
    }
}

impl<C: Connector> Dialer for H2Dialer<C> {
    type Conn = Live;
    type Client = H2Client<C>;

    async fn open(&self) -> Result<Self::Conn, ErrorClass> {
        self.dial().await
    }

    fn clients(self: &Rc<Self>, conn: Option<Self::Conn>) -> Vec<H2Client<C>> {
        let shared = Rc::new(H2Shared {
            dialer: self.clone(),
            current: RefCell::new(conn.map(|c| (1, c))),
            generation: Cell::new(1),
            connecting: tokio::sync::Mutex::new(()),
        });
        (0..self.streams)
            .map(|_| H2Client {
                shared: shared.clone(),
                handle: None,
                failed: None,
                limit_read: None,
            })
            .collect()
    }
}

impl<C: Connector> H2Shared<C> {
    /// The slot's connection, a new one if it has none or only `failed`.
    async fn handle(&self, failed: Option<u64>) -> Result<Handle, ErrorClass> {
        let _one_at_a_time = self.connecting.lock().await;
        if let Some((g, live)) = &*self.current.borrow()
            && Some(*g) != failed
        {
            return Ok((*g, live.clone()));
        }
        *self.current.borrow_mut() = None;
        let live = self.dialer.dial().await?;
        let g = self.generation.get() + 1;
        self.generation.set(g);
        *self.current.borrow_mut() = Some((g, live.clone()));
        Ok((g, live))
    }
}

impl<C: Connector> Client for H2Client<C> {
    fn is_connected(&self) -> bool {
        self.handle.is_some() || self.shared.current.borrow().is_some()
    }

    fn disconnect(&mut self) {
        // A timed-out stream is reset when its future is dropped; the
        // connection itself may be fine, and the other loops still use it.
        self.handle = None;
    }

    async fn exchange<S: AnswerSink>(
        &mut self,
        req: &EncodedRequest,
        _wire: &[u8],
        sink: &mut S,
    ) -> Result<u16, ErrorClass> {
        let r = match self.stream(req, sink).await {
            // Not processed by the server (RFC 9113 8.7): REFUSED_STREAM, a
            // stream opened before the server's SETTINGS limit arrived, or a
            // graceful GOAWAY's streams above its last id (a server ending
            // a connection after so many requests); sent once more, as
            // HTTP/1.1 retries a stale keep-alive connection.
            Err(Fail::Unprocessed { connection_ended }) => {
                if connection_ended {
                    self.forget_connection();
                }
                self.stream(req, sink).await
            }
            r => r,
        }
        .map_err(|f| match f {
            Fail::Unprocessed {
                connection_ended: true,
            } => ErrorClass::GoAway,
            Fail::Unprocessed { .. } => ErrorClass::StreamReset,
            Fail::Class(class) => class,
        });
        if let Err(class) = r
            && !matches!(class, ErrorClass::StreamReset | ErrorClass::Status(_))
        {
            // The connection is gone (or never was): the next send makes another.
            self.forget_connection();
        }
        if self.shared.dialer.per_request {
            self.handle = None;
            *self.shared.current.borrow_mut() = None;
        }
        r
    }
}

impl<C: Connector> H2Client<C> {
    /// Drops this loop's connection, and the slot's if it is the same one.
    fn forget_connection(&mut self) {
        if let Some((g, _)) = self.handle.take() {
            self.failed = Some(g);
            let mut current = self.shared.current.borrow_mut();
            if current.as_ref().is_some_and(|(cg, _)| *cg == g) {
                *current = None;
            }
        }
    }

    async fn stream<S: AnswerSink>(
        &mut self,
        req: &EncodedRequest,
        sink: &mut S,
    ) -> Result<u16, Fail> {
        let h2 = req
            .h2
            .as_ref()
            .expect("an HTTP/2 run encodes its requests for h2");
        if self.handle.is_none() {
            self.handle = Some(self.shared.handle(self.failed).await.map_err(Fail::Class)?);
        }
        let (generation, (send, went_away)) = self.handle.as_mut().expect("set above");
        let h2_err = |e: h2::Error| match h2_class(&e) {
            _ if e.reason() == Some(h2::Reason::REFUSED_STREAM) && e.is_reset() => {
                Fail::Unprocessed {
                    connection_ended: false,
                }
            }
            _ if e.reason() == Some(h2::Reason::NO_ERROR) && e.is_go_away() => Fail::Unprocessed {
                connection_ended: true,
            },
            ErrorClass::Reset | ErrorClass::Malformed if went_away.get() => {
                Fail::Class(ErrorClass::GoAway)
            }
            class => Fail::Class(class),
        };
        poll_fn(|cx| send.poll_ready(cx)).await.map_err(h2_err)?;
        let (answer, mut body_tx) = send
            .send_request(h2.head(), h2.body.is_none())
            .map_err(h2_err)?;
        if let Some(body) = &h2.body {
            body_tx.send_data(body.clone(), true).map_err(h2_err)?;
        }
        let answer = answer.await.map_err(h2_err)?;
        if self.limit_read != Some(*generation) {
            self.limit_read = Some(*generation);
            (self.shared.dialer.stats).on_max_streams(send.current_max_send_streams());
        }
        let status = answer.status().as_u16();
        for (k, v) in answer.headers() {
            sink.header(k.as_str(), v.as_bytes());
        }
        let mut body = answer.into_body();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(h2_err)?;
            sink.body(&chunk);
            let _ = body.flow_control().release_capacity(chunk.len());
        }
        Ok(status)
    }
}
