//! Entry point: validate the environment, build the tokio multi-thread
//! runtime by hand (worker count from TOKIO_WORKERS), bind, serve until
//! SIGTERM/SIGINT.

use std::net::SocketAddr;
use std::process::ExitCode;

use rust_axum_service::{AppState, Settings, serve};

fn main() -> ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("rust-axum-service: invalid configuration: {message}");
            return ExitCode::from(2);
        }
    };
    if settings.log_requests {
        tracing_subscriber::fmt().with_target(false).init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(settings.workers)
        .thread_name("tokio-worker")
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("rust-axum-service: cannot start the tokio runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(settings))
}

async fn run(settings: Settings) -> ExitCode {
    let addr = SocketAddr::new(settings.host, settings.port);
    let listener = match listen(addr) {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("rust-axum-service: cannot listen on {addr}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    let state = AppState::leak(&settings);
    open_database(state).await;
    eprintln!(
        "rust-axum-service: listening on {}://{local} (tokio workers={}, cpus={}, WORK_FACTOR={}, LOG_REQUESTS={}, METRICS={}, tls={}, protocols={}, {})",
        if matches!(settings.transport, rust_axum_service::Transport::Tls(_)) { "https" } else { "http" },
        settings.workers,
        settings.cpus,
        settings.work_factor,
        settings.log_requests,
        settings.metrics,
        settings.transport.tls_name(),
        settings.transport.protocols().join(","),
        rust_axum_service::RUNTIME,
    );
    match serve(listener, state, shutdown_signal()).await {
        Ok(()) => {
            eprintln!("rust-axum-service: stopped");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("rust-axum-service: server error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the whole products pool before serving (minimum = maximum), so no
/// measured request pays for a connection. A database that is down is not a
/// failed start: the product endpoints answer 503 until it is reachable and
/// the pool then opens connections as requests need them.
async fn open_database(state: &AppState) {
    let Some(store) = &state.products else { return };
    match store.open_all().await {
        Ok(open) => eprintln!("rust-axum-service: database pool ready ({open} connections open)"),
        Err(err) => eprintln!(
            "rust-axum-service: database unreachable at start ({err}); the product endpoints answer 503 until it is"
        ),
    }
}

/// Binds like `TcpListener::bind` (SO_REUSEADDR) but with a backlog of
/// 4096 (the kernel clamps it to net.core.somaxconn, as Go does) instead of
/// the 128 that std/mio/tokio use, so a load generator opening hundreds of
/// connections at once does not see SYN drops.
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = match signal(SignalKind::terminate()) {
        Ok(s) => Some(s),
        Err(err) => {
            eprintln!("rust-axum-service: cannot watch SIGTERM ({err}); only SIGINT stops gracefully");
            None
        }
    };
    let term = async {
        match terminate.as_mut() {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term => {},
    }
}
