// METRICS=true and LOG_REQUESTS=true through the real entry point, `node
// server.js`, on an ephemeral 127.0.0.1 port, single event loop and cluster
// (NODE_WORKERS=2): /metrics counts exactly the requests sent (not its own
// reads), summed over every worker in cluster mode, and each request
// writes exactly one log line.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { describe, test } from 'node:test';
import { routeOf } from '../src/metrics.js';

const SERVER = new URL('../server.js', import.meta.url).pathname;
// Each request on a fresh connection, so the cluster spreads them.
const agent = () => new http.Agent({ keepAlive: false });

function request(port, path, method = 'GET', body = undefined) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: agent() }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function start(env) {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no startup line in 15s; stderr: ${stderr}`)), 15_000);
    const look = () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', look);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { ready, stop, stdout: () => stdout };
}

/** Sum of http_requests_total over every label set in a Prometheus text page. */
function requestsTotal(text) {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^http_requests_total(?:\{.*\})? (\S+)$/.exec(line);
    if (m) sum += Number(m[1]);
  }
  return sum;
}

// A mix of routes and statuses: 200s, a 400, a 404, a 405 and the users API.
const PATHS = ['/api/generated/7', '/api/strings/abc', '/api/generated/0', '/nope', '/health', '/users'];

async function sendRequests(port, n) {
  for (let i = 0; i < n; i++) {
    const path = PATHS[i % PATHS.length];
    const r = await request(port, path);
    assert.ok(r.status >= 200 && r.status < 500, `${path}: ${r.status}`);
  }
}

for (const workers of ['1', '2']) {
  describe(`NODE_WORKERS=${workers}`, () => {
    test('/metrics counts every request sent and not its own reads', async () => {
      const service = start({ METRICS: 'true', NODE_WORKERS: workers });
      try {
        const port = await service.ready;
        const first = await request(port, '/metrics');
        assert.equal(first.status, 200);
        assert.equal(requestsTotal(first.text), 0, first.text);
        const n = 60;
        await sendRequests(port, n);
        // Read twice: reading /metrics is never counted.
        await request(port, '/metrics');
        const page = await request(port, '/metrics');
        assert.equal(requestsTotal(page.text), n, page.text);
        assert.match(page.text, /http_requests_total\{route="\/api\/generated\/\{size\}",status="200"\}/);
        assert.match(page.text, /http_requests_total\{route="none",status="404"\}/);
        assert.match(page.text, /http_request_duration_seconds_count\{route="\/health"\} 10/);
      } finally {
        await service.stop();
      }
    });

    test('LOG_REQUESTS=true writes exactly one line per request', async () => {
      const service = start({ LOG_REQUESTS: 'true', METRICS: 'true', NODE_WORKERS: workers });
      try {
        const port = await service.ready;
        const n = 42;
        await sendRequests(port, n);
        const page = await request(port, '/metrics');
        assert.equal(requestsTotal(page.text), n, page.text);
        await service.stop();
        const lines = service
          .stdout()
          .split('\n')
          .filter((l) => /^(GET|POST|PUT|DELETE|HEAD) \S+ status=\d+ /.test(l));
        assert.equal(lines.length, n, service.stdout());
      } finally {
        await service.stop();
      }
    });
  });
}

test('routes are bounded labels, never raw paths', () => {
  assert.equal(routeOf('/api/generated/123'), '/api/generated/{size}');
  assert.equal(routeOf('/api/strings/h%C3%A9'), '/api/strings/{value}');
  assert.equal(routeOf('/users/42'), '/users/{id}');
  assert.equal(routeOf('/users'), '/users');
  assert.equal(routeOf('/health'), '/health');
  assert.equal(routeOf('/x/y/z'), 'none');
});
