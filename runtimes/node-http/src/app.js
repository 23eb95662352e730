// The node-http service: the work function, the request handler and the HTTP
// server, built on Node's built-in `http` module (see ../../CONTRACT.md);
// METRICS=true wraps the handler with ./metrics.js (prom-client).

import http from 'node:http';
import http2 from 'node:http2';
import os from 'node:os';
import v8 from 'node:v8';
import zlib from 'node:zlib';
import { usersRoutes } from './users.js';

export const MAX_SIZE = 1_048_576;

// ---------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, the zlib one). Node 20.15+ has zlib.crc32 (native zlib,
// SIMD-accelerated); older builds get a table-driven fallback.
// ---------------------------------------------------------------------------

function tableCrc32() {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return function crc32(data, value = 0) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let crc = ~value;
    for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    return ~crc >>> 0;
  };
}

export const crc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : tableCrc32();
export const crc32Native = typeof zlib.crc32 === 'function';

// ---------------------------------------------------------------------------
// The work
// ---------------------------------------------------------------------------

const upperRun = (m) => m.toUpperCase();
const lowerRun = (m) => m.toLowerCase();
const LOWER_ASCII = /[a-z]+/g;
const UPPER_ASCII = /[A-Z]+/g;

/**
 * The contract's work on one input string: ASCII-only case mapping, reversal
 * by code points, CRC-32 of the UTF-8 input, and a CRC-32 running over
 * (uppercase + lowercase + reversed) repeated `workFactor` times.
 */
export function work(input, workFactor) {
  const inputBytes = Buffer.byteLength(input, 'utf8');
  let uppercase;
  let lowercase;
  let reversed;
  let stream;
  let hash;
  if (inputBytes === input.length) {
    // Pure ASCII (any non-ASCII UTF-16 unit encodes to >= 2 bytes): the
    // native case mappings touch only a-z / A-Z here, and bytes reverse as
    // code points. The stream is laid out once in one buffer.
    uppercase = input.toUpperCase();
    lowercase = input.toLowerCase();
    const n = inputBytes;
    stream = Buffer.allocUnsafe(3 * n);
    stream.latin1Write(uppercase, 0, n);
    stream.latin1Write(lowercase, n, n);
    stream.latin1Write(input, 2 * n, n);
    const tail = stream.subarray(2 * n);
    hash = crc32(tail); // the input's bytes, before they are reversed in place
    tail.reverse();
    reversed = stream.latin1Slice(2 * n, 3 * n);
  } else {
    // Non-ASCII: map ASCII letters only (JS's own mapping is Unicode-wide,
    // e.g. "ß" -> "SS"), reverse code points (not UTF-16 units).
    uppercase = input.replace(LOWER_ASCII, upperRun);
    lowercase = input.replace(UPPER_ASCII, lowerRun);
    reversed = Array.from(input).reverse().join('');
    stream = Buffer.from(uppercase + lowercase + reversed, 'utf8');
    hash = crc32(input);
  }
  let workScore = 0;
  for (let i = 0; i < workFactor; i++) workScore = crc32(stream, workScore);
  return { input, uppercase, lowercase, reversed, hash, workScore };
}

/** Percent-decodes a path segment; a malformed escape yields '' (rejected as a size). */
function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** The input for /api/generated/{size}: "Helidon" for 7, else size x "x". */
export function generatedInput(size) {
  return size === 7 ? 'Helidon' : 'x'.repeat(size);
}

/**
 * Parses the {size} path segment: ASCII digits only (no sign; leading zeros
 * allowed) with a value in 1..MAX_SIZE. Returns the size, or an error message.
 */
export function parseSize(text) {
  if (!/^[0-9]+$/.test(text)) return { error: 'size must be a decimal integer (digits only)' };
  const value = Number(text); // exact for small values; huge ones are > MAX_SIZE anyway
  if (!(value >= 1 && value <= MAX_SIZE)) return { error: `size must be between 1 and ${MAX_SIZE}` };
  return { size: value };
}

// ---------------------------------------------------------------------------
// Runtime information (computed once per process)
// ---------------------------------------------------------------------------

/**
 * What a server built from options serves (runtimeInfo.tls and .protocols):
 * over TLS, h2 and HTTP/1.1 by ALPN; node's h2c server cannot tell an
 * HTTP/1.1 request from the HTTP/2 preface, so h2c is served alone.
 */
export function transportInfo({ tls, h2c } = {}) {
  if (tls) return { tls: `OpenSSL ${process.versions.openssl}`, protocols: ['h2', 'http/1.1'] };
  return { tls: 'off', protocols: h2c ? ['h2c'] : ['http/1.1'] };
}

export function runtimeInfo(workers, transport) {
  return {
    cpus: os.availableParallelism(),
    parallelism: workers,
    parallelismSource: 'NODE_WORKERS',
    // V8's heap limit of each process (--max-old-space-size), in bytes.
    memoryLimit: String(v8.getHeapStatistics().heap_size_limit),
    serverModel: workers > 1 ? `event loop x ${workers} (cluster)` : 'event loop',
    ...transportInfo(transport),
  };
}

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

const JSON_TYPE = 'application/json';

function fixed(status, value, extraHeaders = {}) {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return {
    status,
    body,
    headers: { 'Content-Type': JSON_TYPE, 'Content-Length': String(body.length), ...extraHeaders },
  };
}

/**
 * Creates (but does not start) the service's server: an http.Server, or with
 * options.tls ({ cert, key }) an http2 secure server that also answers
 * HTTP/1.1, or with options.h2c an http2 plaintext server. The handler is the
 * same for all: HTTP/2 requests come through http2's compatibility API.
 * options: { workFactor, logRequests, workers, keepAliveTimeoutMs, log,
 *   metrics, tls, h2c } (metrics: a createRequestMetrics() of ./metrics.js)
 */
export function createServer(options) {
  const workFactor = options.workFactor ?? 1;
  const logRequests = options.logRequests ?? false;
  const workers = options.workers ?? 1;
  const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 120_000;
  const log = options.log ?? console.log;
  const errorLog = options.errorLog ?? console.error;

  const info = runtimeInfo(workers, options);
  const users = usersRoutes(); // this process's own store (one per cluster worker)
  const infoJson = JSON.stringify(info);
  const runtime = process.version;

  const HEALTH = fixed(200, { status: 'UP', language: 'javascript', runtime, runtimeInfo: info });
  const READY = fixed(200, { status: 'READY' });
  const NOT_FOUND = fixed(404, { error: 'not found' });
  const METHOD_NOT_ALLOWED = fixed(405, { error: 'method not allowed' }, { Allow: 'GET, HEAD' });
  const BAD_ENCODING = fixed(400, { error: 'value is not valid percent-encoded UTF-8' });
  const INTERNAL = fixed(500, { error: 'internal error' });
  const badSize = new Map();
  const badSizeResponse = (message) => {
    let r = badSize.get(message);
    if (r === undefined) badSize.set(message, (r = fixed(400, { error: message })));
    return r;
  };

  // Everything after "workScore" is the same for every answer of this process.
  const tail =
    `,"runtime":${JSON.stringify(runtime)},"language":"javascript"` +
    `,"logEnabled":${logRequests},"runtimeInfo":${infoJson}}`;

  function sendFixed(res, r) {
    res.writeHead(r.status, r.headers);
    res.end(r.body);
  }

  function sendWork(res, input) {
    const w = work(input, workFactor);
    // Field order as in the contract: input, uppercase, lowercase, reversed,
    // hash, workFactor, workScore, runtime, language, logEnabled, runtimeInfo.
    const body =
      `{"input":${JSON.stringify(w.input)}` +
      `,"uppercase":${JSON.stringify(w.uppercase)}` +
      `,"lowercase":${JSON.stringify(w.lowercase)}` +
      `,"reversed":${JSON.stringify(w.reversed)}` +
      `,"hash":${w.hash}` +
      `,"workFactor":${workFactor},"workScore":${w.workScore}` +
      tail;
    res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body, 'utf8') });
    res.end(body, 'utf8');
    return input.length;
  }

  // Routes a request; returns the input size for the log line (or -1).
  function route(req, res) {
    let path = req.url;
    const q = path.indexOf('?');
    if (q !== -1) path = path.slice(0, q);
    const method = req.method;
    const isGet = method === 'GET' || method === 'HEAD';

    if (path.startsWith('/api/')) {
      if (path.startsWith('/api/generated/')) {
        const segment = path.slice(15);
        if (segment.length === 0 || segment.includes('/')) return sendFixed(res, NOT_FOUND), -1;
        if (!isGet) return sendFixed(res, METHOD_NOT_ALLOWED), -1;
        // Percent-decode like any path segment (`%37` is 7); only then check the digits.
        const parsed = segment.includes('%') ? parseSize(decodeSegment(segment)) : parseSize(segment);
        if (parsed.error !== undefined) return sendFixed(res, badSizeResponse(parsed.error)), -1;
        return sendWork(res, generatedInput(parsed.size));
      }
      if (path.startsWith('/api/strings/')) {
        const segment = path.slice(13);
        if (segment.length === 0 || segment.includes('/')) return sendFixed(res, NOT_FOUND), -1;
        if (!isGet) return sendFixed(res, METHOD_NOT_ALLOWED), -1;
        let value;
        try {
          value = segment.includes('%') ? decodeURIComponent(segment) : segment;
        } catch {
          return sendFixed(res, BAD_ENCODING), -1;
        }
        return sendWork(res, value);
      }
      return sendFixed(res, NOT_FOUND), -1;
    }
    if (path.startsWith('/users') && users(req, res, path)) return -1;
    if (path === '/health') return sendFixed(res, isGet ? HEALTH : METHOD_NOT_ALLOWED), -1;
    if (path === '/ready') return sendFixed(res, isGet ? READY : METHOD_NOT_ALLOWED), -1;
    return sendFixed(res, NOT_FOUND), -1;
  }

  function handle(req, res) {
    try {
      route(req, res);
    } catch (err) {
      // Never expected; one line, no stack trace, and the process lives on.
      errorLog(`node-http: ${req.method} ${req.url}: ${err && err.message}`);
      if (!res.headersSent) sendFixed(res, INTERNAL);
      else res.destroy();
    }
  }

  function handleLogged(req, res) {
    const start = process.hrtime.bigint();
    let size = -1;
    try {
      size = route(req, res);
    } catch (err) {
      errorLog(`node-http: ${req.method} ${req.url}: ${err && err.message}`);
      if (!res.headersSent) sendFixed(res, INTERNAL);
      else res.destroy();
    }
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    log(`${req.method} ${req.url} status=${res.statusCode} size=${size < 0 ? '-' : size} elapsed=${micros.toFixed(1)}us`);
  }

  const handler = logRequests ? handleLogged : handle;
  const socketOptions = {
    noDelay: true, // Nagle off (the default since Node 18; explicit here)
    keepAlive: true, // TCP keep-alive probes on accepted sockets
  };
  // METRICS=true: /metrics served, every other request counted and timed.
  const served = options.metrics ? options.metrics.wrap(handler) : handler;
  let server;
  if (options.tls) {
    // TLS only on the port; ALPN offers h2 and (allowHTTP1) http/1.1.
    const { cert, key } = options.tls;
    server = http2.createSecureServer({ ...socketOptions, cert, key, allowHTTP1: true }, served);
  } else if (options.h2c) {
    server = http2.createServer(socketOptions, served);
  } else {
    server = http.createServer(socketOptions, served);
  }
  // Explicit per socket too (the TCP socket, under TLS if any), whatever the
  // defaults of this Node build.
  server.on('connection', (socket) => socket.setNoDelay(true));
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // Headers must arrive within this time; kept above keepAliveTimeout (the
  // usual guidance, so an idle kept-alive socket is never cut by this timer).
  server.headersTimeout = keepAliveTimeoutMs + 5_000;
  server.requestTimeout = Math.max(300_000, keepAliveTimeoutMs + 10_000);
  server.maxRequestsPerSocket = 0; // unlimited requests per connection
  return server;
}
