import { describe, expect, it } from 'vitest';
import type { QueuedDelivery } from 'webhook-cms-receiver';
import {
  BodyGone,
  fromMessage,
  messageBytes,
  QUEUE_MESSAGE_MAX_BYTES,
  type R2BucketLike,
  toMessage,
} from './bodies.js';
import { deadLetterMessage } from './dead-letter.js';

// The message format without workerd: sizes, the reference's checks, and dead letters that must
// still fit a message. The same code runs against real Queues and R2 in cloudflare-*.mjs.
function bucket(): R2BucketLike & { objects: Map<string, string> } {
  const objects = new Map<string, string>();
  return {
    objects,
    put: async (key, value) => void objects.set(key, value),
    get: async (key) => {
      const value = objects.get(key);
      return value === undefined ? null : { text: async () => value };
    },
    delete: async (key) => void objects.delete(key),
  };
}

const articleId = 'a1b2';
function deliveryOf(messageSize: number): QueuedDelivery {
  const base = { deliveryId: 'd-1', timestamp: 1_700_000_000, event: 'article.sync', tokenIndex: 0, receivedAt: 1 };
  const body = (pad: string) =>
    JSON.stringify({ event: 'article.sync', article: { id: articleId, text: `é"\n${pad}` } });
  const size = messageBytes({ ...base, body: body('') });
  return { ...base, body: body('x'.repeat(messageSize - size)) };
}

describe('Cloudflare queue messages and their R2 bodies', () => {
  it('keeps a message of exactly the limit inline and sends one byte more by reference, read back exact', async () => {
    const r2 = bucket();
    const atLimit = deliveryOf(QUEUE_MESSAGE_MAX_BYTES);
    expect(messageBytes(atLimit)).toBe(QUEUE_MESSAGE_MAX_BYTES);
    expect(await toMessage(atLimit, r2)).toBe(atLimit);
    const over = deliveryOf(QUEUE_MESSAGE_MAX_BYTES + 1);
    const message = await toMessage(over, r2);
    expect(message).toMatchObject({ deliveryId: 'd-1', articleId, bodyRef: { bytes: Buffer.byteLength(over.body) } });
    expect('body' in message).toBe(false);
    expect(await fromMessage(message, r2)).toEqual(over);
    expect(r2.objects.size).toBe(1);
  });

  it('refuses a body that is gone or altered, saying which', async () => {
    const r2 = bucket();
    const message = await toMessage(deliveryOf(QUEUE_MESSAGE_MAX_BYTES + 10), r2);
    const [key] = [...r2.objects.keys()];
    r2.objects.set(key!, `${r2.objects.get(key!)!.slice(0, -1)}y`);
    await expect(fromMessage(message, r2)).rejects.toMatchObject({ missing: false, message: /SHA-256/ });
    r2.objects.clear();
    const gone = await fromMessage(message, r2).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(BodyGone);
    expect(gone).toMatchObject({ missing: true, message: /no longer in the R2 bucket/ });
  });

  it('moves the body of a dead letter to R2 when the reason would push it over the limit', async () => {
    const r2 = bucket();
    const letter = await deadLetterMessage(
      deliveryOf(QUEUE_MESSAGE_MAX_BYTES),
      { reason: 'r'.repeat(5000), attempts: 3 },
      r2,
    );
    expect(messageBytes(letter)).toBeLessThan(2048);
    expect(letter.failure.reason).toHaveLength(1000);
    expect(letter.failure.attempts).toBe(3);
    expect(await fromMessage(letter, r2)).toMatchObject({ body: deliveryOf(QUEUE_MESSAGE_MAX_BYTES).body });
    const small = await deadLetterMessage(deliveryOf(1000), { reason: 'why', attempts: 1 }, r2);
    expect(small).toMatchObject({ body: expect.any(String), failure: { reason: 'why' } });
    expect(await deadLetterMessage('text', { reason: 'why', attempts: 1 }, r2)).toMatchObject({
      deliveryId: null,
      original: 'text',
    });
  });
});
