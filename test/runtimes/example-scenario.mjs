import { isDeepStrictEqual } from 'node:util';
import {
  articleSyncPayload,
  articleTrashPayload,
  probeEndpoint,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';

/**
 * Delivers what the service would to a running example over real HTTP and checks each
 * answer: accepted events (with `published_url`), a redelivery answered as a duplicate, and
 * the refusals the service must never retry. Returns one failure text per failed step.
 *
 * @example
 * ```js
 * const { passed, failures } = await deliverScenario('http://127.0.0.1:3000/webhook', token);
 * ```
 */
export async function deliverScenario(url, token) {
  const sync = articleSyncPayload({ article: { slug: `runtime-${Date.now()}` } });
  const publishedUrl = `https://${sync.profile.domain}/blog/${sync.article.slug}`;
  const deliveryId = crypto.randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const tampered = signDelivery({ token, payload: sync });
  const steps = [
    ['test event is acknowledged', signDelivery({ token, payload: testPayload() }), 200, { ok: true }],
    [
      'article.sync answers the published_url',
      signDelivery({ token, payload: sync, deliveryId }),
      200,
      { ok: true, published_url: publishedUrl },
    ],
    [
      'a redelivery of the same id with a fresh signature is a duplicate',
      signDelivery({ token, payload: sync, deliveryId, timestamp: now + 1 }),
      200,
      { ok: true, published_url: publishedUrl, duplicate: true },
    ],
    [
      'a wrong token is refused with 401',
      signDelivery({ token: `${token}-wrong`, payload: sync }),
      401,
      { error: 'Invalid token' },
    ],
    [
      'a tampered body is refused with 403',
      { ...tampered, body: tampered.body.replace('Ten SEO tips', 'Ten SE0 tips') },
      403,
      { error: 'Invalid signature' },
    ],
    [
      'a stale timestamp is refused with 403',
      signDelivery({ token, payload: sync, timestamp: now - 600 }),
      403,
      { error: 'Request expired' },
    ],
    [
      'article.trash is acknowledged',
      signDelivery({ token, payload: articleTrashPayload({ article: { slug: sync.article.slug } }) }),
      200,
      { ok: true },
    ],
  ];
  const failures = [];
  for (const [name, delivery, status, body] of steps) {
    const answer = await send(url, { method: 'POST', ...delivery });
    if (answer.status !== status || !isDeepStrictEqual(answer.body, body)) {
      failures.push(
        `${name}: expected ${status} ${JSON.stringify(body)}, got ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    }
  }
  const get = await send(url, { method: 'GET' });
  if (get.status !== 405) failures.push(`GET is refused with 405: got ${get.status}`);
  return { passed: steps.length + 1 - failures.length, failures };
}

/**
 * Runs `probe --writes`, the conformance check users run against their own endpoint, against
 * a running example: every row must pass (a `warn` is reported but not counted as a failure).
 *
 * @example
 * ```js
 * const { passed, failures } = await probeScenario('http://127.0.0.1:3000/webhook', token);
 * ```
 */
export async function probeScenario(url, token) {
  const { rows } = await probeEndpoint(url, { token, writes: true });
  const failures = rows.filter((row) => row.result === 'fail').map((row) => `probe: ${row.name}: ${row.reason}`);
  return { passed: rows.length - failures.length, failures };
}

/** A request with a 10 s limit; the answer's body as JSON when it is JSON, else as text. */
export async function send(url, init) {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}
