// The users API against the shared vectors (../../contract/vectors.json,
// "users"), through the real handler on an in-process server on 127.0.0.1.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../src/app.js';
import { MAX_BODY_BYTES, SEED_COUNT, parseId, parseNewUser } from '../src/users.js';

const vectors = JSON.parse(readFileSync(new URL('../../contract/vectors.json', import.meta.url), 'utf8')).users;

const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
after(() => agent.destroy());

function request(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        assert.equal(res.headers['content-type'], 'application/json');
        assert.equal(Number(res.headers['content-length']), raw.length);
        resolve({ status: res.statusCode, json: JSON.parse(raw.toString('utf8')) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('users API', () => {
  let server;
  let port;
  before(async () => {
    server = createServer({});
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test('the vectors agree with the store', () => {
    assert.equal(vectors.seeded, SEED_COUNT);
    assert.equal(vectors.max_body_bytes, MAX_BODY_BYTES);
  });

  for (const v of vectors.get) {
    test(`${v.method ?? 'GET'} ${v.path} -> ${v.status}`, async () => {
      const r = await request(port, v.method ?? 'GET', v.path);
      assert.equal(r.status, v.status);
      if (v.user) assert.deepEqual(r.json, v.user);
      if (v.status >= 400) assert.equal(typeof r.json.error, 'string');
    });
  }

  test('POST vectors, in order, then each created user read back', async () => {
    let next = vectors.seeded + 1;
    for (const v of vectors.post) {
      const r = await request(port, 'POST', '/users', v.body);
      assert.equal(r.status, v.status, `${v.name}: ${JSON.stringify(r.json)}`);
      if (!v.user) {
        assert.equal(typeof r.json.error, 'string', v.name);
        continue;
      }
      assert.deepEqual(r.json, { id: next, ...v.user }, v.name);
      const back = await request(port, 'GET', `/users/${next}`);
      assert.deepEqual(back.json, { id: next, ...v.user }, `${v.name} read back`);
      next += 1;
    }
  });

  test('a body over the limit is a 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES), email: 'a@b' });
    const r = await request(port, 'POST', '/users', big);
    assert.equal(r.status, 413);
  });
});

test('parseId takes canonical ids only', () => {
  assert.equal(parseId('42'), 42);
  for (const bad of ['0', '007', '-1', '1.5', '', 'abc', '99999999999999999999']) assert.equal(parseId(bad), undefined, bad);
});

test('parseNewUser: a null name is not a string', () => {
  assert.equal(parseNewUser('{"name":null,"email":"a@b"}').status, 422);
});
