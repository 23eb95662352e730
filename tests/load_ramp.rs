//! The closed loop's connection ramp (issue 15 part 4, the 2020 study's
//! "100 threads over 10 s") with the real `runner load` binary against a
//! real server on 127.0.0.1 that notes when each request of each
//! connection arrived: the connections join one by one over the ramp,
//! every one of them sends in the window, no new connection is opened,
//! and the window counts exactly its own requests — the ramp's go to the
//! `ramp` block, never into the window's figures.
mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::runner_within;

const CONNECTIONS: usize = 4;
const RAMP: Duration = Duration::from_secs(2);
/// Each answer leaves this long after its request arrived, so a
/// connection's next request is sent at least this long after the last.
const DELAY: Duration = Duration::from_millis(20);
const WINDOW_REQUESTS: u64 = 200;

/// Arrival times of the requests, one list per accepted connection.
type Arrivals = Arc<Mutex<Vec<Vec<Instant>>>>;

/// A thread per connection, each request answered `DELAY` after it arrived.
fn start_server() -> (SocketAddr, Arrivals) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let arrivals: Arrivals = Arc::default();
    let all = arrivals.clone();
    // The acceptor lives as long as the test process; connection threads
    // end when the generator closes its connections.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let index = {
                let mut all = all.lock().unwrap();
                all.push(Vec::new());
                all.len() - 1
            };
            let all = all.clone();
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                let (mut buf, mut have) = ([0u8; 4096], 0);
                loop {
                    match stream.read(&mut buf[have..]) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => have += n,
                    }
                    while let Some(end) = buf[..have].windows(4).position(|w| w == b"\r\n\r\n") {
                        let arrived = Instant::now();
                        buf.copy_within(end + 4..have, 0);
                        have -= end + 4;
                        all.lock().unwrap()[index].push(arrived);
                        std::thread::sleep(DELAY);
                        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
                        if stream.write_all(answer).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, arrivals)
}

#[test]
fn connections_join_over_the_ramp_and_the_window_has_them_all_and_only_its_requests() {
    let (addr, arrivals) = start_server();
    let out = runner_within(Duration::from_secs(60))
        .args(["load", &format!("http://{addr}/"), "--json"])
        .args(["-c", &CONNECTIONS.to_string()])
        .args(["-n", &WINDOW_REQUESTS.to_string()])
        .args(["--ramp", "2s"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let arrivals = arrivals.lock().unwrap().clone();

    // The window: exactly its own requests, all answered.
    assert_eq!(report["requests"], WINDOW_REQUESTS, "{report}");
    assert_eq!(report["errors_total"], 0, "{report}");
    // The ramp: its requests are reported apart, and every request the
    // server saw is either the ramp's or the window's.
    let ramp = &report["ramp"];
    assert_eq!(ramp["connections"], CONNECTIONS, "{report}");
    assert_eq!(ramp["seconds"], RAMP.as_secs_f64(), "{report}");
    let ramp_requests = ramp["requests"].as_u64().unwrap();
    let seen: usize = arrivals.iter().map(Vec::len).sum();
    assert!(ramp_requests > 0, "{report}");
    assert_eq!(
        seen as u64,
        ramp_requests + WINDOW_REQUESTS,
        "the server saw {seen} requests: {report}"
    );

    // Exactly N connections, none reopened.
    assert_eq!(arrivals.len(), CONNECTIONS, "{report}");
    let first = arrivals
        .iter()
        .filter_map(|a| a.first().copied())
        .min()
        .unwrap();
    // They joined one by one: the last one ramp * (N - 1) / N after the
    // first (slack for the first request's own trip, which the server
    // cannot see the start of).
    let last_join = arrivals
        .iter()
        .filter_map(|a| a.first().copied())
        .max()
        .unwrap();
    let spread = last_join - first;
    assert!(
        spread >= RAMP.mul_f64(0.75) - Duration::from_millis(500),
        "the last connection joined {spread:?} after the first"
    );
    // Every connection sent in the window: the window starts at most
    // `RAMP` after the first request arrived, and a request sent after an
    // answer to one that arrived at P left no earlier than P + DELAY; a
    // request sent in the window had a ticket, so it is one of the window's.
    let window_start_latest = first + RAMP;
    for (i, times) in arrivals.iter().enumerate() {
        let before_last = times[..times.len() - 1].last().copied();
        assert!(
            before_last.is_some_and(|p| p + DELAY >= window_start_latest),
            "connection {i} sent nothing in the window ({} requests)",
            times.len()
        );
    }
}
