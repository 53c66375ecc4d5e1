import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type WebhookHandlers } from 'webhook-cms-receiver';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { embargoedArticle, embargoedTexts, enableContext, memorySdk, spanText } from './sdk.js';

const token = 'whk_otel_secret_token_e93a7c51';
const otherToken = 'whk_otel_other_token_77d0b2f4';
const article = embargoedArticle;
const secrets = [token, otherToken, ...embargoedTexts];

let disableContext: () => void;
beforeAll(() => {
  disableContext = enableContext();
});
afterAll(() => disableContext());

describe('what telemetry never records', () => {
  it('no token, no signature, no article text in any span (attributes, events, links, status) or metric attribute', async () => {
    const sdk = memorySdk();
    const receiver = createReceiver({
      token: [token, otherToken],
      ordering: true,
      handlerTimeoutMs: 50,
      dedup: memoryDedupStore(),
      instrumentation: openTelemetry(sdk.providers),
      logger: false,
      onError: () => {},
    });
    let calls = 0;
    const handlers: WebhookHandlers = {
      // Throws with the article's text in its message, then hangs, then succeeds: every handler ending.
      'article.sync': ({ article: a }) => {
        calls++;
        if (calls === 1) throw new Error(`could not save ${a.title}: ${a.content_markdown}`);
        if (calls === 2) return new Promise(() => {});
        return { publishedUrl: `https://blog.example.com/${a.slug}` };
      },
      'article.trash': () => Promise.reject(new TypeError(`no ${article.title}`)),
    };
    const now = Math.floor(Date.now() / 1000);
    const sync = (deliveryId: string, timestamp = now, signWith = token) =>
      signDelivery({ token: signWith, payload: articleSyncPayload({ timestamp, article }), deliveryId });
    const deliveries = [
      sync('s-1'), // handler throws
      sync('s-2'), // handler hangs: handler_timeout
      sync('s-3'), // processed
      sync('s-3'), // duplicate
      sync('s-4', now - 60), // stale
      sync('s-5', now, otherToken), // the second token: processed
      signDelivery({ token, payload: articleTrashPayload({ article: { id: 'gone', slug: article.slug } }) }),
    ];
    const signatures = deliveries.map((d) => d.headers['X-Service-Signature']!.slice('sha256='.length));
    for (const delivery of deliveries) await receiver.handle(delivery, handlers);
    // Refusals: a wrong token, a tampered body, a stale timestamp, a body that is not JSON.
    const wrong = signDelivery({ token: 'whk_wrong_f00d', payload: articleSyncPayload({ article }) });
    const tampered = sync('s-t');
    const expired = sync('s-x', now - 3600);
    const garbage = signDelivery({ token, payload: `{"event":"article.sync","title":"${article.title}"` });
    for (const delivery of [wrong, { ...tampered, body: `${tampered.body} ` }, expired, garbage]) {
      signatures.push(delivery.headers['X-Service-Signature']!.slice('sha256='.length));
      await receiver.handle(delivery, handlers);
    }

    const spans = sdk.spans();
    expect(new Set(spans.map((span) => span.attributes['webhook.outcome']))).toEqual(
      new Set(['failed', 'processed', 'duplicate', 'stale', 'refused', undefined]),
    );
    const texts = [
      ...spans.map(spanText),
      JSON.stringify((await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics.map((m) => m.dataPoints))),
    ];
    for (const text of texts) {
      for (const secret of [...secrets, ...signatures]) expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toMatch(/bearer|sha256=/);
    }
    // Only the names below ever appear as attributes.
    const keys = new Set(spans.flatMap((span) => Object.keys(span.attributes)));
    expect([...keys].sort()).toEqual(
      [
        'error.type',
        'http.response.status_code',
        'webhook.delivery_id',
        'webhook.event',
        'webhook.outcome',
        'webhook.refusal.code',
        'webhook.token.index',
      ].sort(),
    );
    expect(spans.flatMap((span) => span.events)).toEqual([]);
  });
});
