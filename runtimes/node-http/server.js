// Entry point: `node server.js`. Reads the environment (PORT, WORK_FACTOR,
// LOG_REQUESTS, METRICS, NODE_WORKERS, ...), then serves on one event loop, or with
// NODE_WORKERS=N > 1 forks N cluster workers that share the port. With
// TLS_CERT_FILE and TLS_KEY_FILE it serves TLS only (h2 and HTTP/1.1), with
// HTTP2=h2c plaintext HTTP/2 (CONTRACT.md, "TLS and HTTP/2").

import cluster from 'node:cluster';
import process from 'node:process';
import { createServer, runtimeInfo } from './src/app.js';
import { ConfigError, loadConfig } from './src/config.js';
import { createRequestMetrics, serveClusterMetrics } from './src/metrics.js';

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`node-http: ${err.message}\n`);
  process.exit(2);
}

function describe(port) {
  const info = runtimeInfo(config.workers, config);
  return (
    `node-http listening on ${config.tls ? 'https' : 'http'}://${config.host}:${port} ` +
    `(${process.version}, ${info.serverModel}, cpus=${info.cpus}, ` +
    `workFactor=${config.workFactor}, logRequests=${config.logRequests}, metrics=${config.metrics}, ` +
    `tls=${info.tls}, protocols=${info.protocols.join(',')})`
  );
}

if (config.workers > 1 && cluster.isPrimary) {
  runPrimary();
} else {
  runServer();
}

// One event loop serving HTTP: the whole service (NODE_WORKERS=1) or one
// cluster worker.
function runServer() {
  const isWorker = cluster.isWorker;
  const metrics = config.metrics ? createRequestMetrics({ clustered: isWorker }) : undefined;
  const server = createServer({ ...config, metrics });
  // HTTP/2 sessions (TLS or h2c), closed gracefully on stop: GOAWAY, their
  // open streams finish. http2's servers have no closeIdleConnections.
  const sessions = new Set();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });

  server.on('error', (err) => {
    process.stderr.write(`node-http: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(1);
  });
  server.listen({ host: config.host, port: config.port, backlog: 4096 }, () => {
    if (!isWorker) process.stdout.write(describe(server.address().port) + '\n');
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Stop accepting; in-flight requests finish; idle keep-alive sockets close
    // now and busy ones right after their answer (Connection: close).
    server.close(() => process.exit(0));
    server.closeIdleConnections?.();
    for (const session of sessions) session.close();
    const force = setTimeout(() => {
      server.closeAllConnections?.();
      process.exit(0);
    }, config.shutdownGraceMs);
    force.unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// The cluster primary: forks the workers, prints one startup line when all of
// them listen, forwards SIGTERM/SIGINT and exits when they have exited. A
// worker that dies on its own takes the service down (a benchmark must not go
// on silently with fewer workers).
function runPrimary() {
  const n = config.workers;
  let listening = 0;
  let alive = 0;
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers)) {
      if (worker && !worker.isDead()) worker.process.kill(signal);
    }
    // Backstop: the workers cut their own sockets after the grace period.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers)) {
        if (worker && !worker.isDead()) worker.process.kill('SIGKILL');
      }
      process.exit(exitCode || 1);
    }, config.shutdownGraceMs + 5_000).unref();
  };

  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (listening === n) process.stdout.write(describe(address.port) + '\n');
  });
  cluster.on('exit', (worker, code, signal) => {
    alive -= 1;
    if (!stopping) {
      process.stderr.write(
        `node-http: worker ${worker.process.pid} exited unexpectedly (code ${code}, signal ${signal}); stopping\n`,
      );
      exitCode = 1;
      stopAll('SIGTERM');
    }
    if (alive === 0) process.exit(exitCode);
  });
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGTERM'));
  if (config.metrics) serveClusterMetrics(n);

  for (let i = 0; i < n; i++) {
    cluster.fork();
    alive += 1;
  }
}
