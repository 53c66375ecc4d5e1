import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createReceiver, type Receiver, type Tenant } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, type SignedDelivery, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { listen } from '../helpers/listen.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const known: Tenant = { id: 'site-known', token: 'whk_known_site_token', profileId: 'prof-known' };
const CAP = 50;

type Post = (signed: SignedDelivery) => Promise<{ status: number; body: unknown }>;

/** Where the flood goes: straight into handle(), or over HTTP through the node adapter (head checks first). */
const paths: {
  name: string;
  flood: number;
  open: (receiver: Receiver) => Promise<{ post: Post; close: () => Promise<void> }>;
}[] = [
  {
    name: 'handle()',
    flood: 5000,
    open: async (receiver) => ({
      post: async (signed) => receiver.handle(signed, { 'article.sync': () => {} }),
      close: async () => {},
    }),
  },
  {
    name: 'HTTP through the node adapter',
    flood: 1000,
    open: async (receiver) => {
      const server = await listen(createServer(webhookHandler(receiver, { 'article.sync': () => {} })));
      return {
        post: async (signed) => {
          const response = await fetch(`${server.url}/`, {
            method: 'POST',
            headers: signed.headers,
            body: signed.body,
          });
          return { status: response.status, body: await response.json() };
        },
        close: () => server.close(),
      };
    },
  },
];

describe.each(paths)('tenant lookups under a flood of random tokens, $name (contract v4)', ({ flood: FLOOD, open }) => {
  it('calls tenants at most tenantLookupsPerSecond times a second, answers the rest 503, and a known site keeps getting 200', async () => {
    const lookups: string[] = [];
    const receiver = createReceiver({
      logger: false,
      tenants: async (hash) => {
        lookups.push(hash);
        // A database round trip: the flood must not be able to queue up behind it either.
        await new Promise((resolve) => setImmediate(resolve));
        return hash === sha256(known.token as string) ? known : undefined;
      },
    });
    const { post, close } = await open(receiver);
    const knownSync = () =>
      signDelivery({
        token: known.token as string,
        payload: articleSyncPayload({ profile: { id: 'prof-known', domain: 'known.example.com' } }),
      });
    try {
      // The known site's token is looked up (and cached) before the flood starts.
      expect((await post(knownSync())).status).toBe(200);
      const floodStatuses = new Map<number, number>();
      const knownStatuses: number[] = [];
      const started = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < FLOOD) {
          const i = next++;
          const signed = signDelivery({ token: `whk_${randomBytes(16).toString('hex')}`, payload: testPayload() });
          const answer = await post(signed);
          floodStatuses.set(answer.status, (floodStatuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 503) expect(answer.body).toEqual({ error: 'Token unavailable' });
          if (i % 50 === 0) knownStatuses.push((await post(knownSync())).status);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const seconds = (performance.now() - started) / 1000;

      const floodLookups = lookups.filter((hash) => hash !== sha256(known.token as string)).length;
      // Each started second allows CAP lookups: the bound holds however slow this machine is.
      expect(floodLookups).toBeLessThanOrEqual(CAP * (Math.ceil(seconds) + 1));
      expect(floodLookups).toBeGreaterThan(0);
      expect([...floodStatuses.keys()].sort()).toEqual([401, 503]);
      expect(floodStatuses.get(401)).toBe(floodLookups);
      expect(floodStatuses.get(503)).toBe(FLOOD - floodLookups);
      expect(knownStatuses).toHaveLength(FLOOD / 50);
      expect(new Set(knownStatuses)).toEqual(new Set([200]));
      expect(lookups.filter((hash) => hash === sha256(known.token as string))).toHaveLength(1);
    } finally {
      await close();
    }
  }, 120_000);
});
