import { isDeepStrictEqual } from 'node:util';
import { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { send } from './example-scenario.mjs';

/**
 * Queue mode of the cloudflare-worker starter, running in workerd with its queues bound
 * (`hostWorker(…, { queueProducers, queueConsumers, tap })`): deliveries are answered
 * `queued` and a redelivery `duplicate`; its `queue()` consumer runs the handlers (seen in
 * what the Worker logs: `sync <slug> (<status>)`, `trash <slug>`), once for a copy the queue
 * delivers again, not for a sync older than the trash it follows (ordering); a body larger than
 * a queue message goes through the starter's R2 bucket; a message that is no delivery ends in
 * the dead-letter queue with its reason, read through the tap. `inbox` is the tap's
 * producer binding to the consumed queue, `deadLetterQueue` the queue the tap consumes.
 *
 * @example
 * ```js
 * const { passed, failures } = await queueScenario(worker, token, { inbox: 'TAP_WEBHOOKS', deadLetterQueue: 'dead' });
 * ```
 */
export async function queueScenario(worker, token, { inbox, deadLetterQueue }) {
  const webhook = new URL('webhook', worker.url).href;
  const tap = (path) => new URL(`__tap/${path}`, worker.url).href;
  const logged = (line) =>
    worker
      .output()
      .split('\n')
      .filter((text) => text.includes(line)).length;
  const post = (delivery) => send(webhook, { method: 'POST', ...delivery });
  const runId = Date.now();
  const article = { id: crypto.randomUUID(), slug: `queued-${runId}` };
  const sync = articleSyncPayload({ article });
  const syncId = crypto.randomUUID();
  const signed = signDelivery({ token, payload: sync, deliveryId: syncId });
  const syncLine = `sync ${article.slug} (`;
  const queued = { status: 200, body: { ok: true, queued: true } };

  /** Waits for `count` lines with `line` in the Worker's output, then (`settleMs`) for any more. */
  const until = async (what, line, count = 1, settleMs = 0) => {
    const deadline = Date.now() + 15_000;
    while (logged(line) < count && Date.now() < deadline) await sleep(50);
    if (logged(line) < count) throw new Error(`${what}: no "${line}" logged within 15 s${tail(worker)}`);
    await sleep(settleMs);
  };
  /** Queues a marker sync and waits until the consumer ran it, and a moment more for the rest of its batch. */
  const drain = async () => {
    const slug = `marker-${crypto.randomUUID()}`;
    expect(
      'the marker delivery',
      await post(signDelivery({ token, payload: articleSyncPayload({ article: { slug } }) })),
      queued,
    );
    await until('the marker delivery', `sync ${slug} (`, 1, 1_000);
  };

  const steps = [
    [
      'a test event is answered queued and the queue() consumer runs its handler',
      async () => {
        expect('the answer', await post(signDelivery({ token, payload: testPayload() })), queued);
        await until('the test handler', 'test delivery received');
      },
    ],
    [
      'article.sync is answered queued (no published_url: the answer goes out first)',
      async () => expect('the answer', await post(signed), queued),
    ],
    [
      'a redelivery of the same id with a fresh signature is answered duplicate',
      async () => {
        const again = signDelivery({
          token,
          payload: sync,
          deliveryId: syncId,
          timestamp: Number(signed.headers['X-Service-Timestamp']) + 1,
        });
        expect('the answer', await post(again), { status: 200, body: { ok: true, queued: true, duplicate: true } });
      },
    ],
    [
      'the queue() consumer runs the article.sync handler once',
      async () => {
        await until('the article.sync handler', syncLine, 1, 500);
        if (logged(syncLine) !== 1) throw new Error(`"${syncLine}" logged ${logged(syncLine)} times${tail(worker)}`);
      },
    ],
    [
      'a copy of the message the queue delivers again does not run the handler again',
      async () => {
        const copy = {
          body: signed.body,
          deliveryId: syncId,
          timestamp: sync.timestamp,
          event: sync.event,
          tokenIndex: 0,
          receivedAt: Date.now(),
        };
        expect('the tap', await send(tap(`send/${inbox}`), json(copy)), { status: 200, body: { sent: true } });
        await drain();
        if (logged(syncLine) !== 1) throw new Error(`"${syncLine}" logged ${logged(syncLine)} times${tail(worker)}`);
      },
    ],
    [
      'a 2 MiB article (over a queue message) is answered queued and its handler runs, the body through R2',
      async () => {
        const big = { id: crypto.randomUUID(), slug: `large-${runId}`, content_html: 'é'.repeat(1024 * 1024) };
        expect(
          'the answer',
          await post(signDelivery({ token, payload: articleSyncPayload({ article: big }) })),
          queued,
        );
        await until('the large article.sync handler', `sync ${big.slug} (`);
      },
    ],
    [
      'article.trash is answered queued and its handler runs',
      async () => {
        expect('the answer', await post(signDelivery({ token, payload: articleTrashPayload({ article }) })), queued);
        await until('the article.trash handler', `trash ${article.slug}`);
      },
    ],
    [
      'ordering: a sync older than the trash is answered queued and never run',
      async () => {
        const stale = articleSyncPayload({ article, timestamp: sync.timestamp - 60 });
        expect('the answer', await post(signDelivery({ token, payload: stale })), queued);
        await drain();
        if (logged(syncLine) !== 1)
          throw new Error(`"${syncLine}" logged ${logged(syncLine)} times: the stale sync ran${tail(worker)}`);
      },
    ],
    [
      `a message that is no delivery ends in the dead-letter queue ${deadLetterQueue}`,
      async () => {
        const now = Date.now();
        const garbage = {
          body: 'not a delivery',
          deliveryId: crypto.randomUUID(),
          timestamp: Math.floor(now / 1000),
          event: 'article.sync',
          tokenIndex: 0,
          receivedAt: now,
        };
        expect('the tap', await send(tap(`send/${inbox}`), json(garbage)), { status: 200, body: { sent: true } });
        // The dead letter is the message as sent, with the reason added as `failure`.
        const same = ({ body: { failure, ...rest } }) => isDeepStrictEqual(rest, garbage) && failure;
        const deadline = Date.now() + 15_000;
        let received = [];
        while (Date.now() < deadline) {
          received = (await send(tap('received'), { method: 'GET' })).body;
          if (received.some(same)) break;
          await sleep(100);
        }
        const dead = received.filter(same);
        if (
          dead.length !== 1 ||
          dead[0].queue !== deadLetterQueue ||
          !/not valid JSON/.test(dead[0].body.failure.reason)
        )
          throw new Error(
            `expected it once in ${deadLetterQueue}, with its reason; the tap received ${JSON.stringify(received)}${tail(worker)}`,
          );
        await until('the consumer', 'dead-lettered');
      },
    ],
  ];
  const failures = [];
  for (const [name, run] of steps) {
    try {
      await run();
    } catch (error) {
      failures.push(`${name}: ${error?.message ?? error}`);
    }
  }
  return { passed: steps.length - failures.length, failures };
}

function expect(what, answer, expected) {
  if (!isDeepStrictEqual(answer, expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(answer)}`);
}

function json(body) {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** The last lines the Worker host printed, for a failure's text. */
function tail(worker) {
  const lines = worker.output().trim().split('\n').slice(-15);
  return `\n           worker output (last ${lines.length} lines):\n             ${lines.join('\n             ')}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
