// The contract's vectors and error cases, checked on the work function and
// through the real HTTP handler on in-process servers (127.0.0.1, ephemeral
// ports), one server per work factor.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createServer, crc32, generatedInput, parseSize, work } from '../src/app.js';

const vectors = JSON.parse(readFileSync(new URL('../../contract/vectors.json', import.meta.url), 'utf8'));

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
after(() => agent.destroy());

function request(port, path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: res.headers, raw, text: raw.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function start(options) {
  const server = createServer(options);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: server.address().port };
}

async function stop(s) {
  await new Promise((resolve) => s.server.close(resolve));
}

function assertJsonAnswer(r, status) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['transfer-encoding'], undefined, 'no chunked encoding');
  assert.equal(Number(r.headers['content-length']), r.raw.length, 'explicit, exact Content-Length');
  return JSON.parse(r.text);
}

function expectedFields(v, input) {
  const n = v.inputLength ?? input.length;
  return {
    input: v.input ?? input,
    uppercase: v.uppercase ?? input.toUpperCase(),
    lowercase: v.lowercase ?? input.toLowerCase(),
    reversed: v.reversed ?? input, // the big generated inputs are all "x"
    n,
  };
}

describe('work function', () => {
  test('CRC-32 is the IEEE one', () => {
    assert.equal(crc32('Helidon'), 2951479431);
    assert.equal(crc32('HELIDONhelidonnodileH'), 3584129939);
    assert.equal(crc32(''), 0);
  });

  for (const v of vectors.generated) {
    test(`generated size=${v.size} workFactor=${v.workFactor}`, () => {
      const input = generatedInput(v.size);
      assert.equal(input.length, v.inputLength);
      const w = work(input, v.workFactor);
      const e = expectedFields(v, input);
      assert.equal(w.input, e.input);
      assert.equal(w.uppercase, e.uppercase);
      assert.equal(w.lowercase, e.lowercase);
      assert.equal(w.reversed, e.reversed);
      assert.equal(w.hash, v.hash);
      assert.equal(w.workScore, v.workScore);
    });
  }

  for (const v of vectors.strings) {
    test(`strings ${JSON.stringify(v.value)} workFactor=${v.workFactor}`, () => {
      const w = work(v.value, v.workFactor);
      assert.deepEqual(
        { ...w },
        {
          input: v.input,
          uppercase: v.uppercase,
          lowercase: v.lowercase,
          reversed: v.reversed,
          hash: v.hash,
          workScore: v.workScore,
        },
      );
    });
  }

  test('case mapping is ASCII-only and reversal is by code points', () => {
    const w = work('aß🙂Z', 1);
    assert.equal(w.uppercase, 'Aß🙂Z');
    assert.equal(w.lowercase, 'aß🙂z');
    assert.equal(w.reversed, 'Z🙂ßa');
    assert.equal(w.hash, crc32(Buffer.from('aß🙂Z', 'utf8')));
    assert.equal(w.workScore, crc32('Aß🙂Zaß🙂zZ🙂ßa'));
  });

  test('size parsing', () => {
    assert.deepEqual(parseSize('7'), { size: 7 });
    assert.deepEqual(parseSize('1048576'), { size: 1048576 });
    assert.deepEqual(parseSize('007'), { size: 7 });
    for (const bad of ['abc', '0', '-1', '1048577', '1.5', '99999999999999999999', '', ' 7', '7 ', '0x10', '1e3', '+7', '-0']) {
      assert.ok(parseSize(bad).error, `${JSON.stringify(bad)} must be rejected`);
    }
  });
});

describe('HTTP handler', () => {
  const servers = new Map(); // workFactor -> { server, port }
  const factors = [
    ...new Set([1, ...vectors.generated.map((v) => v.workFactor), ...vectors.strings.map((v) => v.workFactor)]),
  ];

  before(async () => {
    for (const wf of factors) servers.set(wf, await start({ workFactor: wf, log: () => {} }));
  });
  after(async () => {
    for (const s of servers.values()) await stop(s);
  });

  function checkWorkAnswer(body, v, input, wf) {
    const e = expectedFields(v, input);
    assert.equal(body.input, e.input);
    assert.equal(body.uppercase, e.uppercase);
    assert.equal(body.lowercase, e.lowercase);
    assert.equal(body.reversed, e.reversed);
    assert.equal(body.hash, v.hash);
    assert.equal(body.workFactor, wf);
    assert.equal(body.workScore, v.workScore);
    assert.equal(body.runtime, process.version);
    assert.equal(body.language, 'javascript');
    assert.equal(body.logEnabled, false);
    assert.equal(body.runtimeInfo.parallelism, 1);
    assert.deepEqual(Object.keys(body), [
      'input', 'uppercase', 'lowercase', 'reversed', 'hash', 'workFactor', 'workScore',
      'runtime', 'language', 'logEnabled', 'runtimeInfo',
    ]);
  }

  for (const v of vectors.generated) {
    test(`GET /api/generated/${v.size} with WORK_FACTOR=${v.workFactor}`, async () => {
      const { port } = servers.get(v.workFactor);
      const body = assertJsonAnswer(await request(port, `/api/generated/${v.size}`), 200);
      checkWorkAnswer(body, v, generatedInput(v.size), v.workFactor);
    });
  }

  for (const v of vectors.strings) {
    test(`GET /api/strings/${v.value} with WORK_FACTOR=${v.workFactor}`, async () => {
      const { port } = servers.get(v.workFactor);
      const path = `/api/strings/${encodeURIComponent(v.value)}`;
      const body = assertJsonAnswer(await request(port, path), 200);
      checkWorkAnswer(body, v, v.value, v.workFactor);
    });
  }

  for (const e of vectors.errors) {
    const method = e.method ?? 'GET';
    test(`${method} ${e.path} -> ${e.status}`, async () => {
      const { port } = servers.get(1);
      const body = assertJsonAnswer(await request(port, e.path, method), e.status);
      assert.equal(typeof body.error, 'string');
      if (e.status === 404) assert.equal(body.error, 'not found');
      if (e.status === 405) assert.equal(body.error, 'method not allowed');
    });
  }

  for (const v of vectors.generated_paths) {
    test(`GET ${v.path} -> ${v.status}`, async () => {
      const { port } = servers.get(1);
      const body = assertJsonAnswer(await request(port, v.path), v.status);
      if (v.hash !== undefined) assert.equal(body.hash, v.hash);
      if (v.inputLength !== undefined) assert.equal(body.input.length, v.inputLength);
    });
  }

  test('more bad requests: 400/404/405, and the service stays up', async () => {
    const { port } = servers.get(1);
    const cases = [
      ['GET', '/api/generated/2000000', 400],
      ['GET', '/api/generated/', 404],
      ['GET', '/api/generated/7/x', 404],
      ['GET', '/api/strings/', 404],
      ['GET', '/api/strings/%ZZ', 400],
      ['GET', '/api/strings/%C3', 400],
      ['GET', '/health/', 404],
      ['GET', '/', 404],
      ['PUT', '/api/strings/abc', 405],
      ['POST', '/ready', 405],
      ['POST', '/nope', 404],
    ];
    for (const [method, path, status] of cases) {
      const r = await request(port, path, method);
      assertJsonAnswer(r, status);
      if (status === 405) assert.equal(r.headers.allow, 'GET, HEAD');
    }
    assert.equal((await request(port, '/health')).status, 200);
  });

  test('GET /health and /ready', async () => {
    const { port } = servers.get(1);
    const health = assertJsonAnswer(await request(port, '/health'), 200);
    assert.equal(health.status, 'UP');
    assert.equal(health.language, 'javascript');
    assert.equal(health.runtime, process.version);
    assert.equal(health.runtimeInfo.parallelism, 1);
    assert.equal(health.runtimeInfo.parallelismSource, 'NODE_WORKERS');
    assert.equal(health.runtimeInfo.serverModel, 'event loop');
    assert.ok(health.runtimeInfo.cpus >= 1);
    assert.match(health.runtimeInfo.memoryLimit, /^[0-9]+$/);
    assert.deepEqual(assertJsonAnswer(await request(port, '/ready'), 200), { status: 'READY' });
  });

  test('query strings are ignored, HEAD answers headers only, %2F stays in the value', async () => {
    const { port } = servers.get(1);
    const body = assertJsonAnswer(await request(port, '/api/generated/7?debug=1'), 200);
    assert.equal(body.workScore, 3584129939);
    const head = await request(port, '/api/generated/7', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.raw.length, 0);
    assert.ok(Number(head.headers['content-length']) > 0);
    const slash = assertJsonAnswer(await request(port, '/api/strings/a%2Fb'), 200);
    assert.equal(slash.input, 'a/b');
    assert.equal(slash.reversed, 'b/a');
  });

  test('keep-alive: one connection serves many requests', async () => {
    const { port } = servers.get(1);
    const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set();
    try {
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/api/generated/abc', agent: one }, (res) => {
            sockets.add(res.socket);
            assert.equal(res.headers.connection, 'keep-alive');
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
        });
      }
      assert.equal(sockets.size, 1);
    } finally {
      one.destroy();
    }
  });
});

describe('LOG_REQUESTS', () => {
  test('true: one line per request with path, size and elapsed', async () => {
    const lines = [];
    const s = await start({ workFactor: 1, logRequests: true, log: (l) => lines.push(l) });
    try {
      const body = assertJsonAnswer(await request(s.port, '/api/generated/128'), 200);
      assert.equal(body.logEnabled, true);
      assertJsonAnswer(await request(s.port, '/api/generated/abc'), 400);
      assert.equal(lines.length, 2);
      assert.match(lines[0], /^GET \/api\/generated\/128 status=200 size=128 elapsed=[0-9.]+us$/);
      assert.match(lines[1], /^GET \/api\/generated\/abc status=400 size=- elapsed=[0-9.]+us$/);
    } finally {
      await stop(s);
    }
  });

  test('false: nothing is logged per request', async () => {
    const lines = [];
    const s = await start({ workFactor: 1, logRequests: false, log: (l) => lines.push(l), errorLog: (l) => lines.push(l) });
    try {
      assertJsonAnswer(await request(s.port, '/api/generated/128'), 200);
      assertJsonAnswer(await request(s.port, '/api/generated/99999999999999999999'), 400);
      assertJsonAnswer(await request(s.port, '/api/generated/1', 'POST'), 405);
      assert.deepEqual(lines, []);
    } finally {
      await stop(s);
    }
  });
});
