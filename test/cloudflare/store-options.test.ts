import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { durableObjectDedupStore, WebhookDedupObject } from 'webhook-cms-receiver/cloudflare';

// What needs no workerd: the errors a misconfigured Worker gets before any object is called.
// Everything the objects do is proven in workerd by durable-object.test.ts.
const binding = {
  idFromName: (name: string) => name,
  get: () => ({ fetch: () => Promise.reject(new Error('unused')) }),
};

describe('durableObjectDedupStore options and bindings', () => {
  it('declares ordering and its lease, so the receiver renews it and accepts ordering: true', () => {
    const store = durableObjectDedupStore(binding, { leaseMs: 30_000 });
    expect(store.ordering).toBe(true);
    expect(store.leaseMs).toBe(30_000);
    expect(durableObjectDedupStore(binding).leaseMs).toBe(60_000);
    expect(typeof store.renew).toBe('function');
    expect(() => createReceiver({ token: 't', ordering: true, dedup: store })).not.toThrow();
  });

  it('refuses a missing binding, naming wrangler.toml', () => {
    const missing = undefined as unknown as typeof binding;
    expect(() => durableObjectDedupStore(missing)).toThrow(
      /\[\[durable_objects\.bindings\]\] in wrangler\.toml; got undefined/,
    );
    expect(() => durableObjectDedupStore({} as typeof binding)).toThrow(/pass a Durable Object namespace binding/);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses leaseMs and retentionMs of %s', (value) => {
    expect(() => durableObjectDedupStore(binding, { leaseMs: value })).toThrow(
      /durableObjectDedupStore: leaseMs must be/,
    );
    expect(() => durableObjectDedupStore(binding, { retentionMs: value })).toThrow(
      /durableObjectDedupStore: retentionMs must be/,
    );
  });

  it('WebhookDedupObject refuses to be built without Durable Object state, saying how it is meant to run', () => {
    expect(() => new WebhookDedupObject(undefined as never)).toThrow(/bind it under \[\[durable_objects\.bindings\]\]/);
  });
});
