// Runtime-neutral: runs unchanged on Node, Bun, Deno and in a Worker bundle, so it uses only
// Web APIs (atob, Request, Response, TextDecoder) and never a Node module.
import { createReceiver, nodeCryptoProvider, WebhookError } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';
import file from '../fixtures/deliveries.json' with { type: 'json' };
import { TENANT_CHECKS } from './tenant-checks.mjs';
import { WYCHEPROOF_CHECKS } from './wycheproof-checks.mjs';

/**
 * Runs every shared vector through `receiver.verify`, `receiver.handle` and the Fetch adapter
 * of the BUILT package, plus one redelivery through the adapter, on whatever runtime loaded
 * this module.
 *
 * @example
 * ```js
 * const { runtime, cryptoPath, passed, failed } = await runVectorChecks();
 * ```
 */
export async function runVectorChecks() {
  const vectors = file.vectors.map(({ body_base64, ...vector }) => ({ ...vector, body: decodeBase64(body_base64) }));
  const results = [];
  for (const vector of vectors) {
    for (const [path, check] of Object.entries(CHECKS)) {
      results.push(await attempt(`${path}: ${vector.name}`, () => check(vector)));
    }
  }
  results.push(await attempt('fetch adapter: redelivery answered as duplicate', () => checkRedelivery(vectors[0])));
  results.push(await attempt('core agrees on the crypto path', checkCryptoPath));
  for (const [name, check] of Object.entries(TOKEN_SOURCE_CHECKS))
    results.push(await attempt(name, () => check(vectors)));
  for (const [name, check] of Object.entries(TENANT_CHECKS)) results.push(await attempt(name, check));
  for (const [name, check] of Object.entries(WYCHEPROOF_CHECKS)) results.push(await attempt(name, check));
  const failures = results.filter((result) => result !== true);
  return { ...describeRuntime(), passed: results.length - failures.length, failed: failures.length, failures };
}

const CHECKS = {
  async verify(vector) {
    const outcome = await receiverFor(vector)
      .verify({ headers: vector.headers, body: vector.body })
      .then(
        (event) => ({ event }),
        (error) => ({ error }),
      );
    if (vector.expect.status === 200) {
      expectEqual('event name', outcome.event?.name, vector.expect.event);
      expectEqual('delivery id', outcome.event?.deliveryId, vector.headers['X-Service-Delivery-Id'] ?? null);
    } else {
      expectEqual('is a WebhookError', outcome.error instanceof WebhookError, true);
      expectEqual('status', outcome.error.status, vector.expect.status);
      expectEqual('message', outcome.error.message, vector.expect.error);
    }
  },
  async handle(vector) {
    const { handlers, seen } = recordingHandlers();
    const answer = await receiverFor(vector).handle({ headers: vector.headers, body: vector.body }, handlers);
    expectAnswer(vector, answer.status, answer.body, seen);
  },
  async 'fetch adapter'(vector) {
    const { handlers, seen } = recordingHandlers();
    const response = await webhookHandler(receiverFor(vector), handlers)(requestFor(vector));
    expectAnswer(vector, response.status, await response.json(), seen);
  },
};

// Token sources and the rotation window (contract v4), through the Fetch adapter on this runtime.
const TOKEN_SOURCE_CHECKS = {
  async 'token source: async source verifies, sync source verifies'(vectors) {
    const vector = vectors.find((v) => v.expect.status === 200);
    for (const token of [async () => vector.tokens, () => ({ tokens: vector.tokens })]) {
      const receiver = createReceiver({ token, now: () => vector.now * 1000 });
      const event = await receiver.verify({ headers: vector.headers, body: vector.body });
      expectEqual('event name', event.name, vector.expect.event);
    }
  },
  async 'token source: 503 Token unavailable before a good read'(vectors) {
    const vector = vectors.find((v) => v.expect.status === 200);
    const receiver = createReceiver({
      token: async () => {
        throw new Error('not yet');
      },
      now: () => vector.now * 1000,
      onError() {},
    });
    const response = await webhookHandler(receiver, {})(requestFor(vector));
    expectEqual('status', response.status, 503);
    expectEqual('body', JSON.stringify(await response.json()), JSON.stringify({ error: 'Token unavailable' }));
  },
  async 'rotation window: 503 Token rotation in progress with Retry-After: 60'(vectors) {
    const vector = vectors.find((v) => v.expect.status === 200);
    const now = vector.now * 1000;
    const receiver = createReceiver({
      token: async () => ({ tokens: ['another-token-entirely'], rotatingUntil: now + 3_600_000 }),
      now: () => now,
      logger: false,
    });
    const response = await webhookHandler(receiver, {})(requestFor(vector));
    expectEqual('status', response.status, 503);
    expectEqual('retry-after', response.headers.get('retry-after'), '60');
    expectEqual('body', JSON.stringify(await response.json()), JSON.stringify({ error: 'Token rotation in progress' }));
  },
};

async function checkRedelivery(vector) {
  const { handlers, seen } = recordingHandlers();
  const handler = webhookHandler(receiverFor(vector), handlers);
  await handler(requestFor(vector));
  const again = await handler(requestFor(vector));
  expectEqual('status', again.status, 200);
  expectEqual('body', JSON.stringify(await again.json()), JSON.stringify({ ok: true, duplicate: true }));
  expectEqual('handler runs', seen.length, 1);
}

// The probe in describeRuntime() must agree with the package: node:crypto loads exactly where
// the probe finds it, so the default provider took the path this run reports.
function checkCryptoPath() {
  let loaded;
  try {
    loaded = nodeCryptoProvider().name;
  } catch {
    loaded = 'webcrypto';
  }
  expectEqual('crypto path', loaded, describeRuntime().cryptoPath);
}

function receiverFor(vector) {
  return createReceiver({ token: vector.tokens, now: () => vector.now * 1000 });
}

function requestFor(vector) {
  return new Request('http://127.0.0.1/webhook', { method: 'POST', headers: vector.headers, body: vector.body });
}

function recordingHandlers() {
  const seen = [];
  const record = (event) => void seen.push(event.name);
  return { seen, handlers: { 'article.sync': record, 'article.trash': record, test: record, unknown: record } };
}

function expectAnswer(vector, status, body, seen) {
  expectEqual('status', status, vector.expect.status);
  if (vector.expect.status === 200) {
    expectEqual('body', JSON.stringify(body), JSON.stringify({ ok: true }));
    expectEqual('handlers run', seen.join(), vector.expect.event);
  } else {
    expectEqual('body', JSON.stringify(body), JSON.stringify({ error: vector.expect.error }));
    expectEqual('handlers run', seen.length, 0);
  }
}

function expectEqual(what, actual, expected) {
  if (actual !== expected)
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

async function attempt(name, check) {
  try {
    await check();
    return true;
  } catch (error) {
    return `${name}: ${error?.message ?? error}`;
  }
}

function decodeBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Names the runtime and the crypto path the core's default provider takes here, probed the way the core probes it. */
export function describeRuntime() {
  const g = globalThis;
  let runtime = 'node';
  let version = g.process?.versions?.node;
  if (g.Bun) [runtime, version] = ['bun', g.Bun.version];
  else if (g.Deno) [runtime, version] = ['deno', g.Deno.version.deno];
  else if (g.navigator?.userAgent === 'Cloudflare-Workers') [runtime, version] = ['workerd', undefined];
  let nodeCrypto;
  try {
    nodeCrypto = g.process?.getBuiltinModule?.('node:crypto');
  } catch {
    nodeCrypto = undefined;
  }
  return { runtime, version, cryptoPath: typeof nodeCrypto?.createHmac === 'function' ? 'node:crypto' : 'webcrypto' };
}
