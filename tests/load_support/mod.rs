//! Test HTTP servers for the load generator's tests, on 127.0.0.1 with an
//! ephemeral port, each on its own thread and runtime, stopped on drop.
#![allow(dead_code)] // each test crate uses a subset

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the server answers each request.
#[derive(Debug, Clone)]
pub enum Behavior {
    /// 200 with a small Content-Length body, at once.
    Ok,
    /// 200 after exactly this delay.
    Delay(Duration),
    /// Stalls like a stop-the-world pause: every `period` (from server start +
    /// `offset`) it answers nothing for `freeze`; requests received then are
    /// answered when the freeze ends; otherwise at once.
    Freeze {
        period: Duration,
        freeze: Duration,
        offset: Duration,
    },
    /// This status with a small body.
    Status(u16),
    /// Headers announcing 100 bytes, 10 bytes of body, then a TCP reset.
    ResetMidBody,
    /// Reads the request and never answers (keeps the connection open).
    NeverAnswer,
    /// 200 with a chunked body of several chunks and a trailer.
    Chunked,
    /// 200 with `Connection: close`, then closes.
    ConnectionClose,
    /// 200 with no Content-Length: the body ends when the server closes.
    CloseDelimited,
}

pub struct TestServer {
    pub addr: SocketAddr,
    /// Requests read (answered or not).
    pub requests: Arc<AtomicU64>,
    /// Connections accepted.
    pub connections: Arc<AtomicU64>,
    /// Connections open now (the tokio server only; always 0 for `Delay`).
    pub open: Arc<AtomicU64>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    pub fn start(behavior: Behavior) -> TestServer {
        if let Behavior::Delay(d) = behavior {
            return Self::start_exact_delay(d);
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicU64::new(0));
        let connections = Arc::new(AtomicU64::new(0));
        let open = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (req, conns, gauge) = (requests.clone(), connections.clone(), open.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                let origin = Instant::now();
                let accept = async {
                    loop {
                        let (stream, _) = listener.accept().await.unwrap();
                        conns.fetch_add(1, Ordering::Relaxed);
                        gauge.fetch_add(1, Ordering::Relaxed);
                        let _ = stream.set_nodelay(true);
                        let (behavior, req, open) = (behavior.clone(), req.clone(), gauge.clone());
                        tokio::spawn(async move {
                            serve(stream, behavior, req, origin).await;
                            open.fetch_sub(1, Ordering::Relaxed);
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stopped => {}
                }
            });
        });
        TestServer {
            addr,
            requests,
            connections,
            open,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// A thread per connection with blocking IO: the answer leaves `delay`
    /// after the request arrived with a single wake-up (a tokio server adds
    /// its timer's 1 ms rounding and cross-thread hops, ~10% at 10 ms on a
    /// busy machine).
    fn start_exact_delay(delay: Duration) -> TestServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicU64::new(0));
        let connections = Arc::new(AtomicU64::new(0));
        let (req, conns) = (requests.clone(), connections.clone());
        // Connection threads end when the client closes; the acceptor lives as long
        // as the test process (a blocking accept cannot be interrupted portably).
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                conns.fetch_add(1, Ordering::Relaxed);
                let req = req.clone();
                std::thread::spawn(move || {
                    use std::io::{Read, Write};
                    // SAFETY: prctl with an integer argument; 1 ns timer slack for exact sleeps.
                    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
                    let _ = stream.set_nodelay(true);
                    let mut buf = [0u8; 4096];
                    let mut have = 0;
                    loop {
                        match stream.read(&mut buf[have..]) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => have += n,
                        }
                        while let Some(end) = buf[..have].windows(4).position(|w| w == b"\r\n\r\n")
                        {
                            let arrived = Instant::now();
                            buf.copy_within(end + 4..have, 0);
                            have -= end + 4;
                            req.fetch_add(1, Ordering::Relaxed);
                            std::thread::sleep(delay.saturating_sub(arrived.elapsed()));
                            if stream
                                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                                .is_err()
                            {
                                return;
                            }
                        }
                    }
                });
            }
        });
        TestServer {
            addr,
            requests,
            connections,
            open: Arc::new(AtomicU64::new(0)),
            stop: None,
            thread: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A port that refuses connections for as long as this value lives: the
/// socket is bound but never listens, so the kernel answers a SYN with a reset
/// and no other test can take the port meanwhile. (Binding and releasing a
/// port is not enough: with tests in parallel another server may get it.)
pub struct RefusedPort {
    pub addr: SocketAddr,
    _bound: tokio::net::TcpSocket,
}

impl RefusedPort {
    pub fn new() -> RefusedPort {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = socket.local_addr().unwrap();
        RefusedPort {
            addr,
            _bound: socket,
        }
    }
}

async fn serve(
    mut stream: TcpStream,
    behavior: Behavior,
    requests: Arc<AtomicU64>,
    origin: Instant,
) {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        // Read one request head (test requests carry no body).
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        if head_end == buf.len() {
            buf.clear();
        } else {
            buf.drain(..head_end);
        }
        requests.fetch_add(1, Ordering::Relaxed);
        let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".as_slice();
        let result = match &behavior {
            Behavior::Ok => stream.write_all(ok).await,
            Behavior::Delay(_) => unreachable!("served by start_exact_delay"),
            Behavior::Freeze { period, freeze, offset } => {
                let phase = (origin.elapsed().as_nanos() % period.as_nanos()) as u64;
                let (start, end) = (offset.as_nanos() as u64, (*offset + *freeze).as_nanos() as u64);
                if phase >= start && phase < end {
                    tokio::time::sleep(Duration::from_nanos(end - phase)).await;
                }
                stream.write_all(ok).await
            }
            Behavior::Status(code) => {
                let r = format!("HTTP/1.1 {code} Oops\r\nContent-Length: 4\r\n\r\noops");
                stream.write_all(r.as_bytes()).await
            }
            Behavior::ResetMidBody => {
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                    .await;
                let _ = stream.flush().await;
                tokio::time::sleep(Duration::from_millis(5)).await;
                // SO_LINGER 0: close sends RST instead of FIN.
                let _ = stream.set_zero_linger();
                return;
            }
            Behavior::NeverAnswer => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
            Behavior::Chunked => {
                stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n",
                    )
                    .await
            }
            Behavior::ConnectionClose => {
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello")
                    .await;
                return;
            }
            Behavior::CloseDelimited => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n\r\nbody until close").await;
                return;
            }
        };
        if result.is_err() {
            return;
        }
    }
}

/// The load runs the timing tests check and scripts/bench-timing.sh times
/// (examples/load-timing.rs): one definition, so the printed figures are of
/// the runs the tests judge.
pub mod runs {
    use std::net::SocketAddr;
    use std::time::Duration;

    use std::time::Instant;

    use runner::load::{Arrival, LoadConfig, LoadControl, LoadReport, RequestSpec, StopCondition};

    /// A closed loop of `connections` GETs of `/` against `server`.
    pub fn config(server: SocketAddr, connections: usize, stop: StopCondition) -> LoadConfig {
        let mut c = LoadConfig::closed(server, RequestSpec::get("/"), connections);
        c.stop = stop;
        c
    }

    /// An open loop of `rate` req/s on `connections` for `window`.
    pub fn open_loop(
        server: SocketAddr,
        rate: f64,
        connections: usize,
        window: Duration,
    ) -> LoadConfig {
        let mut c = config(server, connections, StopCondition::Duration(window));
        c.arrival = Arrival::Open {
            rate,
            connections,
            ramp: None,
        };
        c
    }

    /// 2,000 req/s on 10 connections for 2 s after 300 ms: 4,000 intended.
    pub fn open_loop_2000(server: SocketAddr) -> LoadConfig {
        let mut c = open_loop(server, 2000.0, 10, Duration::from_secs(2));
        c.warmup = Duration::from_millis(300);
        c
    }

    /// 1,000 req/s reached over a 1 s ramp, the window being the ramp: 500 intended.
    pub fn ramp_1000(server: SocketAddr) -> LoadConfig {
        let mut c = open_loop(server, 1000.0, 4, Duration::from_secs(1));
        c.arrival = Arrival::Open {
            rate: 1000.0,
            connections: 4,
            ramp: Some(Duration::from_secs(1)),
        };
        c
    }

    /// The open loop against the freezing server: 2,000 req/s on 40
    /// connections and 2 threads, 10 s after 500 ms (two whole freezes).
    pub fn open_loop_through_freezes(server: SocketAddr) -> LoadConfig {
        let mut c = open_loop(server, 2000.0, 40, Duration::from_secs(10));
        c.warmup = Duration::from_millis(500);
        c.threads = 2;
        c
    }

    /// A 30 s closed loop of 4 connections against `server` (one that never
    /// answers), cancelled from another thread at `after`: the report and
    /// the instant the cancel was asked for.
    pub fn cancelled_at(server: SocketAddr, after: Duration) -> (LoadReport, Instant) {
        let control = LoadControl::new();
        let c = config(server, 4, StopCondition::Duration(Duration::from_secs(30)));
        let canceller = control.clone();
        let at = Instant::now() + after;
        let t = std::thread::spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            canceller.cancel();
        });
        let report = runner::load::run(&c, &control).expect("the load run");
        t.join().expect("the canceller");
        (report, at)
    }
}
