#!/usr/bin/env node
// `node test/queue/cloudflare-bodies.mjs`: deliveries of every size through Cloudflare Queues in
// workerd (miniflare, no nodejs_compat). A delivery whose queue message would pass the limit
// cloudflareQueue keeps to goes to the R2 bucket and the message holds a reference; the handler
// sees the exact body either way, and the R2 copy is gone once the job completed. Sizes: the
// serialized message (the one the code sends, all its fields) at the limit − 1, exactly, + 1
// byte, and a body of 10 MiB, the receiver's default maxBodyBytes. Exits 0 only when all passed.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { onNode22, runChecks, startQueueWorker } from './cloudflare-harness.mjs';

onNode22(import.meta.url, 'cloudflare-bodies');
const worker = await startQueueWorker({ entry: 'cloudflare-worker.ts' });
console.log(`cloudflare-bodies: workerd ${worker.workerd} (miniflare), R2 bucket bound, package from the sources`);
const limit = await (await fetch(new URL('/limit', worker.url))).json();
const { articleSyncPayload, signDelivery } = worker.testing;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

// Escaped and multi-byte characters, so a size counted in UTF-16 units or before JSON escaping is caught.
const MIXED = '<p class="lead">Crème brûlée, 10 € — "quoted" \\ and a 😀\n</p>\t';

/** An article.sync payload whose content_html ends in `pad` ASCII letters, each one byte everywhere. */
const payloadWith = (slug, article, pad) =>
  articleSyncPayload({ article: { ...article, slug, content_html: article.content_html + 'a'.repeat(pad) } });

/**
 * The queue message as cloudflareQueue sends an inline delivery (the receiver's QueuedDelivery:
 * body, deliveryId, timestamp, event, tokenIndex, receivedAt), in UTF-8 bytes of its JSON.
 */
const messageBytes = (payload, deliveryId) => {
  const body = signDelivery({ token: worker.token, payload, deliveryId }).body;
  const message = {
    body,
    deliveryId,
    timestamp: payload.timestamp,
    event: payload.event,
    tokenIndex: 0,
    receivedAt: Date.now(),
  };
  return Buffer.byteLength(JSON.stringify(message));
};

/** A payload whose queue message would be exactly `target` bytes inline. */
const payloadOfMessageBytes = (slug, deliveryId, target) => {
  const base = payloadWith(slug, { id: randomUUID(), content_html: MIXED.repeat(1000) }, 0);
  const pad = target - messageBytes(base, deliveryId);
  const payload = payloadWith(slug, base.article, pad);
  assert.equal(messageBytes(payload, deliveryId), target);
  return payload;
};

/** Posts the payload and checks every promise: queued, sent as expected, exact body seen, effect once, R2 copy gone. */
const deliverAndCheck = async (payload, deliveryId, expectSent) => {
  const started = performance.now();
  assert.deepEqual(await worker.post(payload, deliveryId), { status: 200, body: { ok: true, queued: true } });
  const answeredMs = performance.now() - started;
  const html = payload.article.content_html;
  const seen = `body ${deliveryId} ${html.length} ${createHash('sha256').update(html).digest('hex')}`;
  await worker.until(`the effect of ${deliveryId}`, async () => (await worker.count(`effect ${deliveryId}`)) === 1);
  const doneMs = performance.now() - started;
  const log = await worker.readLog();
  assert.equal(log.filter((line) => line === seen).length, 1, 'the handler saw the exact body, once');
  const sent = log.filter((line) => line.startsWith(`sent ${deliveryId} `));
  assert.equal(sent.length, 1, `one message sent: ${sent}`);
  expectSent(sent[0].split(' '));
  await worker.until(
    'the R2 copy deleted',
    async () => !(await worker.bodies()).some((key) => key.includes(deliveryId)),
  );
  console.log(`       answered in ${answeredMs.toFixed(0)} ms; the effect seen ${doneMs.toFixed(0)} ms after the post`);
};

const atSize = (offset) => async () => {
  const deliveryId = randomUUID();
  const target = limit + offset;
  await deliverAndCheck(
    payloadOfMessageBytes(`sized-${offset}`, deliveryId, target),
    deliveryId,
    ([, , bytes, where]) => {
      if (offset <= 0) assert.deepEqual([Number(bytes), where], [target, 'inline']);
      else {
        assert.equal(where, 'ref');
        assert.ok(Number(bytes) < 1024, `a reference message is small: ${bytes} bytes`);
      }
    },
  );
};

await runChecks(
  'cloudflare-bodies',
  [
    [`a message of the limit − 1 byte (${limit - 1}) goes inline and is processed`, atSize(-1)],
    [`a message of exactly the limit (${limit} bytes) goes inline and is processed`, atSize(0)],
    [`a message of the limit + 1 byte (${limit + 1}) goes to R2 by reference, processed, R2 copy deleted`, atSize(1)],
    [
      'a 10 MiB delivery (maxBodyBytes) is queued by reference and processed, never a 503; its R2 copy deleted',
      async () => {
        const deliveryId = randomUUID();
        const base = payloadWith('sized-10mib', { id: randomUUID(), content_html: MIXED.repeat(100_000) }, 0);
        const bytes = Buffer.byteLength(signDelivery({ token: worker.token, payload: base, deliveryId }).body);
        const payload = payloadWith('sized-10mib', base.article, MAX_BODY_BYTES - bytes);
        assert.equal(
          Buffer.byteLength(signDelivery({ token: worker.token, payload, deliveryId }).body),
          MAX_BODY_BYTES,
        );
        await deliverAndCheck(payload, deliveryId, ([, , , where]) => assert.equal(where, 'ref'));
      },
    ],
  ],
  worker.stop,
);
