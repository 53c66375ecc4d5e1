import { afterAll, describe, expect, it } from 'vitest';
import { type DedupStore, memoryDedupStore, type Receiver, type WebhookEvent } from 'webhook-cms-receiver';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { rotationDrill, type SignedDelivery } from 'webhook-cms-receiver/testing';
import { freshPrefix, redisUrl } from '../redis/redis-clients.js';
import { receiverFromEnv, receiverFromSecret } from './runbook-examples.js';

const OLD = 'runbook-old-token-0123456789';
const NEW = 'runbook-new-token-9876543210';
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The shared store every "deployment" uses: Redis when it runs here, else one memory store standing in for it. */
async function sharedStore(): Promise<DedupStore> {
  if (!redisUrl) return memoryDedupStore();
  const { createClient } = await import('redis');
  const client = await createClient({ url: redisUrl }).connect();
  closers.push(() => client.quit());
  return redisDedupStore(client, { keyPrefix: freshPrefix() });
}

function handling() {
  const seen: string[] = [];
  return { seen, handlers: { 'article.sync': (event: WebhookEvent) => void seen.push(event.deliveryId!) } };
}

describe('the README rotation runbook loses nothing', () => {
  it('env vars: arm and deploy, regenerate, deploy the new token first, check, disarm', async () => {
    const store = await sharedStore();
    const { seen, handlers } = handling();
    // Each deploy makes a new receiver from the environment; the store outlives it.
    let live: Receiver = receiverFromEnv({ WEBHOOK_TOKEN: OLD }, store);
    const deploy = (env: Record<string, string>) => {
      live = receiverFromEnv(env, store, handlers);
    };
    const until = new Date(Date.now() + 3_600_000).toISOString();
    // 1. Arm.
    deploy({ WEBHOOK_TOKEN: OLD, WEBHOOK_ROTATING_UNTIL: until });
    // 2. Regenerate (the drill switches the service's token), 3. update the secret and deploy.
    const drill = await rotationDrill({
      send: (signed: SignedDelivery) => live.handle(signed, handlers),
      oldToken: OLD,
      newToken: NEW,
      updateSecret: () => deploy({ WEBHOOK_TOKEN: NEW, WEBHOOK_TOKEN_PREVIOUS: OLD, WEBHOOK_ROTATING_UNTIL: until }),
      timeScale: 0.01,
    });
    expect(drill.lost).toEqual([]);
    expect(new Set(seen).size).toBe(drill.deliveries.length);
    expect(seen).toHaveLength(drill.deliveries.length);
    // 4. Check: the new token is index 0. 5. Disarm: an unknown token is a 401 again.
    deploy({ WEBHOOK_TOKEN: NEW });
    const after = await rotationDrill({
      send: (signed: SignedDelivery) => live.handle(signed, handlers),
      oldToken: NEW,
      newToken: NEW,
      deliveries: 2,
      updateSecret: () => {},
      timeScale: 0.01,
    });
    expect(after.ok).toBe(true);
  });

  it('secret manager: arm in the secret, regenerate, put the new token first, check, disarm; no deploy', async () => {
    const store = await sharedStore();
    const { seen, handlers } = handling();
    const manager = new Map<string, string>([['webhook-token', JSON.stringify({ tokens: [OLD] })]]);
    const receiver = receiverFromSecret(async (name) => manager.get(name)!, store);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    // 1. Arm, in the secret itself.
    manager.set('webhook-token', JSON.stringify({ tokens: [OLD], rotatingUntil: until }));
    // The receiver re-reads within tokenCacheMs, or at once on an unknown token (at most once a second).
    const drill = await rotationDrill({
      send: (signed: SignedDelivery) => receiver.handle(signed, handlers),
      oldToken: OLD,
      newToken: NEW,
      updateSecret: () => {
        manager.set('webhook-token', JSON.stringify({ tokens: [NEW, OLD], rotatingUntil: until }));
      },
      timeScale: 0.01,
    });
    expect(drill.lost).toEqual([]);
    expect(seen).toHaveLength(drill.deliveries.length);
    expect(new Set(seen).size).toBe(drill.deliveries.length);
    // 5. Disarm: drop the old token and the window from the secret.
    manager.set('webhook-token', JSON.stringify({ tokens: [NEW] }));
  });
});
