// TLS and HTTP/2 (CONTRACT.md, "TLS and HTTP/2"): the real `node server.js`
// over HTTPS/1.1 and h2 with a run-style certificate made by
// ../contract/tls-certs.sh in a temporary folder (the client trusts only its
// CA), in one process and as a cluster with metrics; h2c; and the refusals at
// start. Traffic stays on 127.0.0.1; every child is stopped by its PID.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

const SERVER = new URL('../server.js', import.meta.url).pathname;
const CERTS = new URL('../../contract/tls-certs.sh', import.meta.url).pathname;
const vectors = JSON.parse(readFileSync(new URL('../../contract/vectors.json', import.meta.url), 'utf8'));
const vector = vectors.strings.find((v) => v.workFactor === 1);
const OPENSSL = `OpenSSL ${process.versions.openssl}`;

let dir;
let ca;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-http-tls-'));
  execFileSync(CERTS, [dir]);
  ca = readFileSync(join(dir, 'ca.pem'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const tlsEnv = () => ({ TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') });

/** Starts `node server.js` with env; ready resolves with the port of its startup line. */
function startService(env) {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no startup line in 15s; stderr: ${stderr}`)), 15_000);
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

/** SIGTERM to the child's PID; resolves with its exit within timeoutMs (else SIGKILL and a failure). */
async function stop(service, timeoutMs = 10_000) {
  service.child.kill('SIGTERM');
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      service.child.kill('SIGKILL');
      reject(new Error(`no exit ${timeoutMs} ms after SIGTERM`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([service.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function collect(stream, resolve, extra) {
  const chunks = [];
  stream.on('data', (c) => chunks.push(c));
  stream.on('end', () => resolve({ ...extra(), text: Buffer.concat(chunks).toString('utf8') }));
}

/** GET over HTTPS/1.1 (ALPN http/1.1 only) on a kept-alive agent, trusting only the test CA. */
function getHttps1(agent, host, port, path) {
  return new Promise((resolve, reject) => {
    const req = https.get({ host, port, path, agent, ca, ALPNProtocols: ['http/1.1'] }, (res) => {
      // Read now: the agent takes the socket back once the body has ended.
      const seen = { status: res.statusCode, version: res.httpVersion, alpn: res.socket.alpnProtocol };
      collect(res, resolve, () => seen);
    });
    req.on('error', reject);
  });
}

/** GET over an HTTP/2 session (h2 or h2c). */
function getH2(session, path) {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let status;
    req.on('response', (headers) => (status = headers[':status']));
    req.on('error', reject);
    collect(req, resolve, () => ({ status, alpn: session.alpnProtocol }));
    req.end();
  });
}

function getHttp1(port, path) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) =>
      collect(res, resolve, () => ({ status: res.statusCode, version: res.httpVersion })),
    );
    req.on('error', reject);
  });
}

/** /health's transport fields and one strings vector through get(path). */
async function checkContract(get, tls, protocols) {
  const health = await get('/health');
  assert.equal(health.status, 200);
  const info = JSON.parse(health.text).runtimeInfo;
  assert.equal(info.tls, tls);
  assert.deepEqual(info.protocols, protocols);
  const r = await get(`/api/strings/${encodeURIComponent(vector.value)}`);
  assert.equal(r.status, 200);
  const body = JSON.parse(r.text);
  assert.equal(body.input, vector.input);
  assert.equal(body.hash, vector.hash);
  assert.equal(body.workScore, vector.workScore);
  return [health, r];
}

function connectH2(authority, options = {}) {
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, options);
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

describe('TLS and HTTP/2', () => {
  for (const workers of ['1', '2']) {
    test(`TLS, NODE_WORKERS=${workers}, METRICS=true: HTTPS/1.1 and h2 (ALPN), counted; SIGTERM exits 0`, async () => {
      const s = startService({ ...tlsEnv(), NODE_WORKERS: workers, METRICS: 'true' });
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
      let session;
      try {
        const port = await s.ready;
        for (const host of ['127.0.0.1', 'localhost']) {
          for (const r of await checkContract(
            (path) => getHttps1(agent, host, port, path),
            OPENSSL,
            ['h2', 'http/1.1'],
          )) {
            assert.equal(r.version, '1.1');
            assert.equal(r.alpn, 'http/1.1');
          }
        }
        session = await connectH2(`https://localhost:${port}`, { ca });
        for (const r of await checkContract((path) => getH2(session, path), OPENSSL, ['h2', 'http/1.1'])) {
          assert.equal(r.alpn, 'h2');
        }
        // 4 answers over HTTPS/1.1 and 2 over h2, summed over the workers.
        const metrics = await getH2(session, '/metrics');
        assert.equal(metrics.status, 200);
        const counted = [...metrics.text.matchAll(/^http_requests_total\{.*\} (\d+)$/gm)];
        assert.equal(
          counted.reduce((n, m) => n + Number(m[1]), 0),
          6,
          metrics.text,
        );
        // TLS only: a plain HTTP request on the port gets no HTTP answer.
        await assert.rejects(getHttp1(port, '/health'));
      } finally {
        // Stopped with an h2 session and a kept-alive HTTPS/1.1 connection open.
        const { code } = await stop(s);
        assert.equal(code, 0);
        session?.destroy();
        agent.destroy();
      }
      assert.equal(s.output().stderr, '');
    });
  }

  test('HTTP2=h2c: HTTP/2 by prior knowledge; HTTP/1.1 is not served on that port', async () => {
    const s = startService({ HTTP2: 'h2c' });
    let session;
    try {
      const port = await s.ready;
      session = await connectH2(`http://127.0.0.1:${port}`);
      await checkContract((path) => getH2(session, path), 'off', ['h2c']);
      await assert.rejects(getHttp1(port, '/health'));
    } finally {
      assert.equal((await stop(s)).code, 0);
      session?.destroy();
    }
  });

  test('plain by default: runtimeInfo says so', async () => {
    const s = startService({});
    try {
      const port = await s.ready;
      await checkContract((path) => getHttp1(port, path), 'off', ['http/1.1']);
    } finally {
      assert.equal((await stop(s)).code, 0);
    }
  });

  const refusals = [
    ['TLS_CERT_FILE alone', () => ({ TLS_CERT_FILE: join(dir, 'cert.pem') }), () => ['TLS_KEY_FILE', join(dir, 'cert.pem')]],
    ['TLS_KEY_FILE alone', () => ({ TLS_KEY_FILE: join(dir, 'key.pem') }), () => ['TLS_CERT_FILE', join(dir, 'key.pem')]],
    ['a missing certificate', () => ({ ...tlsEnv(), TLS_CERT_FILE: join(dir, 'nope.pem') }), () => ['TLS_CERT_FILE', join(dir, 'nope.pem')]],
    ['a missing key', () => ({ ...tlsEnv(), TLS_KEY_FILE: join(dir, 'nope.pem') }), () => ['TLS_KEY_FILE', join(dir, 'nope.pem')]],
    ['a key that is not the certificate\'s', () => ({ ...tlsEnv(), TLS_KEY_FILE: join(dir, 'ca.pem') }), () => ['TLS_KEY_FILE', join(dir, 'ca.pem')]],
    ['HTTP2=h2', () => ({ HTTP2: 'h2' }), () => ['HTTP2']],
    ['HTTP2=h2c with TLS', () => ({ ...tlsEnv(), HTTP2: 'h2c' }), () => ['HTTP2', 'TLS_CERT_FILE']],
  ];
  for (const [name, env, words] of refusals) {
    test(`refuses ${name} at start, naming it`, async () => {
      const s = startService(env());
      await assert.rejects(s.ready);
      // Exited already when it refused; otherwise stop() ends it (and the code is not 2).
      const { code } = await stop(s);
      assert.equal(code, 2);
      const { stderr } = s.output();
      for (const w of words()) assert.ok(stderr.includes(w), `${JSON.stringify(stderr)} names ${w}`);
      assert.equal(stderr.trim().split('\n').length, 1, 'one line, no stack trace');
    });
  }
});
