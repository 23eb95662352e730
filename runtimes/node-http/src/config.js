// Environment parsing for the node-http service (see ../../CONTRACT.md).
// An invalid setting is an error at start, never a silent default: a benchmark
// must not run with a setting it was not given.

import { readFileSync } from 'node:fs';
import tls from 'node:tls';

export class ConfigError extends Error {}

// Reads one PEM file named by the variable `name`; an error names both.
function pemFile(name, path) {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${name}=${JSON.stringify(path)}: cannot read it (${err.code ?? err.message})`);
  }
}

/**
 * The transport (CONTRACT.md, "TLS and HTTP/2"): { tls: { cert, key } } with
 * both TLS_CERT_FILE and TLS_KEY_FILE, { h2c: true } with HTTP2=h2c, else
 * plain. The key pair is loaded and checked here, so a cluster's primary
 * refuses it before any worker starts.
 */
function transportEnv(env) {
  const certFile = env.TLS_CERT_FILE ?? '';
  const keyFile = env.TLS_KEY_FILE ?? '';
  const http2 = env.HTTP2 ?? '';
  if (http2 !== '' && http2 !== 'h2c') {
    throw new ConfigError(`HTTP2=${JSON.stringify(http2)} is not "h2c" (HTTP/2 over TLS needs no setting)`);
  }
  if (certFile === '' && keyFile === '') return { tls: undefined, h2c: http2 === 'h2c' };
  if (certFile === '' || keyFile === '') {
    throw new ConfigError(
      `TLS_CERT_FILE=${JSON.stringify(certFile)}, TLS_KEY_FILE=${JSON.stringify(keyFile)}: set both or neither`,
    );
  }
  if (http2 === 'h2c') {
    throw new ConfigError(`HTTP2=h2c with TLS_CERT_FILE=${JSON.stringify(certFile)}: h2c is HTTP/2 without TLS`);
  }
  const cert = pemFile('TLS_CERT_FILE', certFile);
  const key = pemFile('TLS_KEY_FILE', keyFile);
  try {
    tls.createSecureContext({ cert, key }); // throws on a bad PEM or a key of another certificate
  } catch (err) {
    throw new ConfigError(
      `TLS_CERT_FILE=${JSON.stringify(certFile)}, TLS_KEY_FILE=${JSON.stringify(keyFile)}: ${err.message}`,
    );
  }
  return { tls: { cert, key }, h2c: false };
}

function intEnv(env, name, def, min, max) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text)) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a decimal integer (expected ${min}..${max})`);
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is out of range (expected ${min}..${max})`);
  }
  return value;
}

function boolEnv(env, name, def) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const text = raw.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not "true" or "false"`);
}

/**
 * Reads the service configuration from an environment object.
 * Throws ConfigError with a message naming the variable on invalid input.
 */
export function loadConfig(env = process.env) {
  return {
    host: env.HOST === undefined || env.HOST === '' ? '127.0.0.1' : env.HOST,
    // PORT=0 asks the OS for an ephemeral port (used by the tests); the
    // startup line on stdout says which one.
    port: intEnv(env, 'PORT', 8080, 0, 65535),
    workFactor: intEnv(env, 'WORK_FACTOR', 1, 1, Number.MAX_SAFE_INTEGER),
    logRequests: boolEnv(env, 'LOG_REQUESTS', false),
    metrics: boolEnv(env, 'METRICS', false),
    workers: intEnv(env, 'NODE_WORKERS', 1, 1, 1024),
    // Keep-alive: benchmarks reuse connections, so idle ones are kept long.
    keepAliveTimeoutMs: intEnv(env, 'KEEP_ALIVE_TIMEOUT_MS', 120_000, 1, 3_600_000),
    // Grace period for in-flight requests on SIGTERM before sockets are cut.
    shutdownGraceMs: intEnv(env, 'SHUTDOWN_GRACE_MS', 5_000, 0, 600_000),
    ...transportEnv(env),
  };
}
