// The users API of ../../CONTRACT.md ("Users"): an in-memory Map seeded with
// SEED_COUNT users at start, GET /users/:id and POST /users. In cluster mode
// every worker builds its own store (see the contract on reads after writes).

export const SEED_COUNT = 10_000;
export const MAX_BODY_BYTES = 64 * 1024;

const JSON_TYPE = 'application/json';

/** A store holding users 1..n: user i is { id: i, name: `user${i}`, email: `user${i}@example.com` }. */
export function createStore(n = SEED_COUNT) {
  const byId = new Map();
  for (let i = 1; i <= n; i++) byId.set(i, { id: i, name: `user${i}`, email: `user${i}@example.com` });
  let lastId = n;
  return {
    get: (id) => byId.get(id),
    insert(name, email) {
      lastId += 1;
      const user = { id: lastId, name, email };
      byId.set(lastId, user);
      return user;
    },
  };
}

const ID = /^[1-9][0-9]{0,17}$/;

/** The {id} segment: canonical decimal digits (no sign, no leading zero, at most 18); else no user. */
export function parseId(segment) {
  if (!ID.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined; // ids past 2^53 are never stored
}

/** Validates a POST body (a string): { user: {name, email} } or { status, error }. */
export function parseNewUser(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 400, error: 'body is not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { status: 422, error: 'body must be a JSON object' };
  }
  const { name, email } = value;
  if (typeof name !== 'string' || name.length === 0) return { status: 422, error: 'name must be a non-empty string' };
  if (typeof email !== 'string' || !email.includes('@')) {
    return { status: 422, error: "email must be a string containing '@'" };
  }
  return { user: { name, email } };
}

function send(res, status, value, extraHeaders) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body, 'utf8'),
    ...extraHeaders,
  });
  res.end(body, 'utf8');
}

/** The users routes over `store`; `handle(req, res, path)` returns false for a path that is not theirs. */
export function usersRoutes(store = createStore()) {
  function create(req, res) {
    const chunks = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        send(res, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const parsed = parseNewUser(Buffer.concat(chunks, size).toString('utf8'));
      if (parsed.error !== undefined) return send(res, parsed.status, { error: parsed.error });
      send(res, 201, store.insert(parsed.user.name, parsed.user.email));
    });
  }

  return function handle(req, res, path) {
    const method = req.method;
    if (path === '/users') {
      if (method === 'POST') return create(req, res), true;
      return send(res, 405, { error: 'method not allowed' }, { Allow: 'POST' }), true;
    }
    if (!path.startsWith('/users/')) return false;
    const segment = path.slice(7);
    if (segment.length === 0 || segment.includes('/')) return false;
    if (method !== 'GET' && method !== 'HEAD') {
      return send(res, 405, { error: 'method not allowed' }, { Allow: 'GET, HEAD' }), true;
    }
    const id = parseId(segment);
    const user = id === undefined ? undefined : store.get(id);
    if (user === undefined) send(res, 404, { error: 'user not found' });
    else send(res, 200, user);
    return true;
  };
}
