// METRICS=true (see ../../CONTRACT.md): every request counted and timed, by
// route and status, in a prom-client registry served on GET /metrics, which
// is not itself counted. The same names and buckets as go-nethttp's
// Prometheus registry (http_requests_total, http_request_duration_seconds).
//
// With NODE_WORKERS > 1 each cluster worker keeps its own registry, and a
// GET /metrics (answered by whichever worker accepted the connection) asks
// the cluster primary, over the cluster's IPC channel, for prom-client's
// AggregatorRegistry view of every worker's registry summed, so one
// /metrics counts every request the service served.

import cluster from 'node:cluster';
import client from 'prom-client';

const METRICS_PATH = '/metrics';
// This service's own IPC messages (prom-client's own are `prom-client:*`).
const ASK = 'node-http:metrics-request';
const ANSWER = 'node-http:metrics-answer';
// The primary gives up on the workers after 5 s (prom-client's own timeout).
const ASK_TIMEOUT_MS = 10_000;

/** The route a path belongs to, as a bounded label (never the raw path). */
export function routeOf(path) {
  if (path.startsWith('/api/generated/')) return '/api/generated/{size}';
  if (path.startsWith('/api/strings/')) return '/api/strings/{value}';
  if (path === '/users') return '/users';
  if (path.startsWith('/users/')) return '/users/{id}';
  if (path === '/health' || path === '/ready') return path;
  return 'none';
}

function pathOf(url) {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * A process's request metrics. `clustered`: this process is a cluster
 * worker, so /metrics shows the whole cluster's (see serveClusterMetrics).
 * `wrap(handler)` returns a request handler that serves /metrics and counts
 * and times every other request `handler` answers.
 */
export function createRequestMetrics({ clustered = false } = {}) {
  const registry = new client.Registry();
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'Requests served, by route and status.',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to the response, by route.',
    labelNames: ['route'],
    buckets: client.exponentialBuckets(0.00005, 2, 16),
    registers: [registry],
  });
  const exposition = clustered ? askPrimary(registry) : () => registry.metrics();

  function serve(res) {
    exposition().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      },
      (err) => {
        const body = JSON.stringify({ error: `metrics unavailable: ${err && err.message}` });
        res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
    );
  }

  function wrap(handler) {
    return function counted(req, res) {
      const path = pathOf(req.url);
      if (path === METRICS_PATH && (req.method === 'GET' || req.method === 'HEAD')) return serve(res);
      const start = process.hrtime.bigint();
      // On 'finish': the users routes answer after reading the body.
      res.once('finish', () => {
        const route = routeOf(path);
        requests.inc({ route, status: String(res.statusCode) });
        latency.observe({ route }, Number(process.hrtime.bigint() - start) / 1e9);
      });
      handler(req, res);
    };
  }

  return { registry, wrap };
}

// A cluster worker: prom-client's listener answers the primary's requests
// for this worker's registry; /metrics asks the primary for the sum.
function askPrimary(registry) {
  client.AggregatorRegistry.setRegistries(registry);
  new client.AggregatorRegistry(); // installs the worker's listener
  let next = 0;
  const waiting = new Map();
  process.on('message', (message) => {
    if (message?.type !== ANSWER) return;
    const pending = waiting.get(message.id);
    if (pending === undefined) return;
    waiting.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.text);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the cluster primary did not answer in ${ASK_TIMEOUT_MS} ms`));
      }, ASK_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      process.send({ type: ASK, id });
    });
}

/**
 * The cluster primary's part: answers a worker's /metrics with every
 * worker's metrics summed. A worker serves requests as soon as it listens,
 * possibly before the others have loaded prom-client's listener (whose
 * silence would time the sum out), so asks wait until all `workers` listen.
 */
export function serveClusterMetrics(workers) {
  const aggregator = new client.AggregatorRegistry();
  let listening = 0;
  const waiting = [];
  const answer = (worker, id) =>
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text }),
      (err) => worker.isConnected() && worker.send({ type: ANSWER, id, error: String(err && err.message) }),
    );
  cluster.on('listening', () => {
    listening += 1;
    if (listening === workers) for (const [worker, id] of waiting.splice(0)) answer(worker, id);
  });
  cluster.on('message', (worker, message) => {
    if (message?.type !== ASK) return;
    if (listening < workers) waiting.push([worker, message.id]);
    else answer(worker, message.id);
  });
}
