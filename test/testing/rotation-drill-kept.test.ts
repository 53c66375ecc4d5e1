import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type WebhookEvent } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { rotationDrill } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { expectedRefusal } from './quiet.js';

const OLD = 'drill-kept-old-token-0123456789';
const NEW = 'drill-kept-new-token-9876543210';
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A receiver over real HTTP, armed, whose token source is a variable the drill's `updateSecret`
 * changes, once the receiver has answered `keptAnswers` requests 503: so the service has given
 * up on a delivery made with the new token before the secret knows it, however slow the machine.
 */
async function armedEndpoint(keptAnswers: number) {
  const secret = { tokens: [OLD] };
  const seen: string[] = [];
  const receiver = createReceiver({
    token: () => secret.tokens,
    rotatingUntil: Date.now() + 3_600_000,
    tokenCacheMs: 50,
    logger: false,
    onRejected: expectedRefusal,
  });
  const record = (event: WebhookEvent) => void seen.push(event.deliveryId!);
  const handle = webhookHandler(receiver, { 'article.sync': record });
  let refused = 0;
  let wake = () => {};
  server = await listen(
    createServer((req, res) => {
      res.on('finish', () => {
        if (res.statusCode === 503 && ++refused >= keptAnswers) wake();
      });
      void handle(req, res);
    }),
  );
  return {
    url: `${server.url}/webhook`,
    seen,
    updateSecret: async () => {
      if (refused < keptAnswers) await new Promise<void>((resolve) => (wake = resolve));
      secret.tokens = [NEW, OLD];
    },
  };
}

describe('rotationDrill and deliveries processed from kept requests', () => {
  it('reports a delivery whose every attempt was answered 503 token_rotating, then processed from the kept store, as processedFromKept, not lost', async () => {
    // Delivery 1 carries the new token; the service tries it 4 times (no requeues), each answered
    // 503 and kept, and gives up; only then is the secret updated, before delivery 2.
    const { url, seen, updateSecret } = await armedEndpoint(4);
    const drill = await rotationDrill({
      url,
      oldToken: OLD,
      newToken: NEW,
      deliveries: 3,
      regenerateAt: 1,
      updateSecretAt: 2,
      requeues: 0,
      updateSecret,
      timeScale: 0.01,
    });
    const kept = drill.deliveries.filter((d) => d.attempts.every((a) => a.status === 503));
    expect(kept.length).toBeGreaterThan(0);
    // Every delivery's handler ran exactly once: nothing was lost.
    expect([...seen].sort()).toEqual(drill.deliveries.map((d) => d.deliveryId).sort());
    expect(drill.lost).toEqual([]);
    expect(drill.ok).toBe(true);
    expect(drill.processedFromKept.map((d) => d.deliveryId).sort()).toEqual(kept.map((d) => d.deliveryId).sort());
    expect(drill.processedFromKept.every((d) => d.outcome === 'processed-from-kept')).toBe(true);
  });

  it('still reports as lost a delivery refused 401 without a window', async () => {
    const seen: string[] = [];
    const secret = { tokens: [OLD] };
    const receiver = createReceiver({
      token: () => secret.tokens,
      tokenCacheMs: 50,
      logger: false,
      onRejected: expectedRefusal,
    });
    server = await listen(
      createServer(webhookHandler(receiver, { 'article.sync': (event) => void seen.push(event.deliveryId!) })),
    );
    const drill = await rotationDrill({
      url: `${server.url}/webhook`,
      oldToken: OLD,
      newToken: NEW,
      deliveries: 4,
      regenerateAt: 1,
      updateSecretAt: 3,
      // Far apart, so a refused delivery reaches the receiver before the secret changes.
      intervalMs: 30_000,
      updateSecret: () => {
        secret.tokens = [NEW, OLD];
      },
      timeScale: 0.01,
    });
    expect(drill.ok).toBe(false);
    expect(drill.lost.length).toBeGreaterThan(0);
    expect(drill.processedFromKept).toEqual([]);
    expect(drill.lost.every((d) => !seen.includes(d.deliveryId))).toBe(true);
  });
});
