// The real entry point, `node server.js`, as a child process on an ephemeral
// 127.0.0.1 port: single event loop, cluster mode (NODE_WORKERS=2), graceful
// SIGTERM, and refusal of invalid settings at start.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { describe, test } from 'node:test';

const SERVER = new URL('../server.js', import.meta.url).pathname;
const vectors = JSON.parse(readFileSync(new URL('../../contract/vectors.json', import.meta.url), 'utf8'));

function get(port, path, method = 'GET') {
  return new Promise((resolve, reject) => {
    // agent: false -> a fresh connection, closed after the answer.
    const req = http.request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode, headers: res.headers, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts `node server.js` with env; resolves once the startup line names the port. */
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
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
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
  return {
    child,
    ready,
    exited,
    output: () => ({ stdout, stderr }),
  };
}

function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function isAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

async function stopAndWait(service, timeoutMs = 10_000) {
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

const v128 = vectors.generated.find((v) => v.size === 128 && v.workFactor === 10);

describe('node server.js', () => {
  test('single event loop: health, work, bad requests, SIGTERM exits 0', async () => {
    const s = startService({ WORK_FACTOR: '10' });
    try {
      const port = await s.ready;
      const health = JSON.parse((await get(port, '/health')).text);
      assert.equal(health.runtimeInfo.parallelism, 1);
      assert.equal(health.runtimeInfo.serverModel, 'event loop');
      const r = await get(port, '/api/generated/128');
      assert.equal(r.status, 200);
      const body = JSON.parse(r.text);
      assert.equal(body.workFactor, 10);
      assert.equal(body.hash, v128.hash);
      assert.equal(body.workScore, v128.workScore);
      for (const [path, method, status] of [
        ['/api/generated/abc', 'GET', 400],
        ['/api/generated/0', 'GET', 400],
        ['/api/generated/2000000', 'GET', 400],
        ['/api/generated/99999999999999999999', 'GET', 400],
        ['/api/generated/128', 'POST', 405],
        ['/nope', 'GET', 404],
      ]) {
        assert.equal((await get(port, path, method)).status, status, `${method} ${path}`);
      }
      assert.equal((await get(port, '/health')).status, 200);
    } finally {
      const { code } = await stopAndWait(s);
      assert.equal(code, 0);
    }
    const { stdout, stderr } = s.output();
    assert.equal(stderr, '', 'nothing on stderr (no stack traces)');
    assert.equal(stdout.trim().split('\n').length, 1, 'only the startup line on stdout');
  });

  test('LOG_REQUESTS=true logs one line per request on stdout', async () => {
    const s = startService({ LOG_REQUESTS: 'true' });
    try {
      const port = await s.ready;
      await get(port, '/api/generated/7');
      await get(port, '/api/generated/abc');
    } finally {
      assert.equal((await stopAndWait(s)).code, 0);
    }
    const lines = s.output().stdout.trim().split('\n');
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.match(lines[1], /^GET \/api\/generated\/7 status=200 size=7 elapsed=/);
    assert.match(lines[2], /^GET \/api\/generated\/abc status=400 size=- elapsed=/);
  });

  test('cluster: NODE_WORKERS=2 answers health with parallelism 2; SIGTERM stops all', async () => {
    const s = startService({ NODE_WORKERS: '2', WORK_FACTOR: '10' });
    let workers = [];
    try {
      const port = await s.ready;
      workers = childPids(s.child.pid);
      assert.equal(workers.length, 2, 'two worker processes');
      const health = JSON.parse((await get(port, '/health')).text);
      assert.equal(health.runtimeInfo.parallelism, 2);
      assert.equal(health.runtimeInfo.parallelismSource, 'NODE_WORKERS');
      assert.equal(health.runtimeInfo.serverModel, 'event loop x 2 (cluster)');
      for (let i = 0; i < 6; i++) {
        const body = JSON.parse((await get(port, '/api/generated/128')).text);
        assert.equal(body.workScore, v128.workScore);
        assert.equal(body.runtimeInfo.parallelism, 2);
        assert.equal((await get(port, '/api/generated/abc')).status, 400);
      }
    } finally {
      const { code } = await stopAndWait(s);
      assert.equal(code, 0);
    }
    for (const pid of workers) assert.ok(!isAlive(pid), `worker ${pid} has exited`);
    assert.equal(s.output().stderr, '');
  });

  test('cluster: a worker that dies takes the service down, loudly', async () => {
    const s = startService({ NODE_WORKERS: '2' });
    await s.ready;
    const workers = childPids(s.child.pid);
    assert.equal(workers.length, 2);
    process.kill(workers[0], 'SIGKILL');
    const { code } = await s.exited;
    assert.equal(code, 1);
    assert.match(s.output().stderr, /exited unexpectedly/);
  });

  for (const [name, value] of [
    ['WORK_FACTOR', '0'],
    ['WORK_FACTOR', 'abc'],
    ['WORK_FACTOR', '-3'],
    ['PORT', '70000'],
    ['NODE_WORKERS', '0'],
    ['LOG_REQUESTS', 'yes'],
  ]) {
    test(`refuses ${name}=${value} at start`, async () => {
      const s = startService({ [name]: value });
      await assert.rejects(s.ready);
      const { code } = await s.exited;
      assert.equal(code, 2);
      const { stderr } = s.output();
      assert.match(stderr, new RegExp(`^node-http: ${name}=`));
      assert.equal(stderr.trim().split('\n').length, 1, 'one line, no stack trace');
    });
  }
});
