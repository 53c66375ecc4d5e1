import { describe, expect, it } from 'vitest';
import { createReceiver, WebhookError, type WebhookEvent } from 'webhook-cms-receiver';
import { providers } from '../helpers/providers.js';
import { vectors } from '../helpers/vectors.js';

describe.each(providers)('shared vectors with %s', (_name, crypto) => {
  const receiverFor = (vector: (typeof vectors)[number]) =>
    createReceiver({ token: vector.tokens, now: () => vector.now * 1000, crypto });

  it.each(vectors.map((v) => [v.name, v] as const))('verify(): %s', async (_n, vector) => {
    const outcome = receiverFor(vector).verify({ headers: vector.headers, body: vector.body });
    if (vector.expect.status === 200) {
      const event = await outcome;
      expect(event.name).toBe(vector.expect.event);
      expect(event.type).toBe(['article.sync', 'article.trash', 'test'].includes(event.name) ? event.name : 'unknown');
      expect(event.deliveryId).toBe(vector.headers['X-Service-Delivery-Id'] ?? null);
      expect(event.tokenIndex).toBe(vector.tokens.indexOf(vector.headers.Authorization!.slice('Bearer '.length)));
    } else {
      const error = await outcome.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).status).toBe(vector.expect.status);
      expect((error as WebhookError).message).toBe(vector.expect.error);
    }
  });

  it.each(vectors.map((v) => [v.name, v] as const))('handle(): %s', async (_n, vector) => {
    const seen: WebhookEvent[] = [];
    const record = (event: WebhookEvent) => void seen.push(event);
    const answer = await receiverFor(vector).handle(
      { headers: vector.headers, body: vector.body },
      { 'article.sync': record, 'article.trash': record, test: record, unknown: record },
    );
    expect(answer.status).toBe(vector.expect.status);
    if (vector.expect.status === 200) {
      expect(answer.body).toEqual({ ok: true });
      expect(seen.map((event) => event.name)).toEqual([vector.expect.event]);
    } else {
      expect(answer.body).toEqual({ error: vector.expect.error });
      expect(seen).toEqual([]);
    }
  });
});
