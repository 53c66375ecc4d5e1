import { describe, expect, it } from 'vitest';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  articleFixture,
  articleSyncPayload,
  articleTrashPayload,
  signDelivery,
  testPayload,
} from 'webhook-cms-receiver/testing';

const token = 'whk_factories_test_token';
const DELIVERY_ID = 'X-Service-Delivery-Id';

describe('payload factories', () => {
  it('give every article a fresh id per call, in articleFixture, article.sync and article.trash', () => {
    const ids = [
      articleFixture().id,
      articleFixture().id,
      articleSyncPayload().article.id,
      articleSyncPayload().article.id,
      articleTrashPayload().article.id,
      articleTrashPayload().article.id,
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keep a given article id, and the realistic defaults beside it', () => {
    const sync = articleSyncPayload({ article: { id: 'art-1', status: 'draft' } });
    expect(sync.article).toMatchObject({
      id: 'art-1',
      status: 'draft',
      slug: 'ten-seo-tips',
      tags: ['seo', 'content'],
    });
    expect(sync.article.title).not.toMatch(/^[ -~]*$/); // some non-ASCII text
    expect(articleTrashPayload({ article: { id: sync.article.id } }).article).toEqual({
      id: 'art-1',
      slug: 'ten-seo-tips',
    });
    expect(articleFixture({ id: 'art-2' }).id).toBe('art-2');
  });

  it('leave the delivery id to signDelivery, which makes a fresh one per call unless given or null', () => {
    const payload = articleSyncPayload();
    const first = signDelivery({ token, payload }).headers[DELIVERY_ID];
    const second = signDelivery({ token, payload }).headers[DELIVERY_ID];
    expect(first).toEqual(expect.any(String));
    expect(first).not.toBe(second);
    expect(signDelivery({ token, payload, deliveryId: 'd-7' }).headers[DELIVERY_ID]).toBe('d-7');
    expect(signDelivery({ token, payload: testPayload(), deliveryId: null }).headers).not.toHaveProperty(DELIVERY_ID);
  });

  it('let two tests sharing one receiver with ordering on both run their handlers: nothing is a duplicate or stale', async () => {
    const receiver = createReceiver({ token, ordering: true });
    const ran: string[] = [];
    const handlers: WebhookHandlers = {
      'article.sync': ({ article }) => void ran.push(`sync ${article.id}`),
      'article.trash': ({ article }) => void ran.push(`trash ${article.id}`),
    };
    const now = Math.floor(Date.now() / 1000);
    // "Test one" trashes its article now; "test two" then syncs its own, with an older envelope.
    const trash = articleTrashPayload({ timestamp: now });
    const sync = articleSyncPayload({ timestamp: now - 60 });
    for (const payload of [trash, sync]) {
      expect(await receiver.handle(signDelivery({ token, payload }), handlers)).toEqual({
        status: 200,
        body: { ok: true },
      });
    }
    expect(ran).toEqual([`trash ${trash.article.id}`, `sync ${sync.article.id}`]);
  });
});
