import { describe, expect, it } from 'vitest';
import { fifoFields } from './fifo.js';

const delivery = (deliveryId: string | null, extra: { tenant?: string } = {}) => ({
  body: '{}',
  deliveryId,
  timestamp: 1_700_000_000,
  event: 'article.sync',
  tokenIndex: 0,
  receivedAt: 0,
  ...extra,
});

describe('fifoFields', () => {
  it('groups by the article and deduplicates by the delivery id as sent', async () => {
    expect(await fifoFields(delivery('d-1'), 'post-7')).toEqual({
      MessageGroupId: 'article:post-7',
      MessageDeduplicationId: 'd-1',
    });
  });

  it('scopes both by the tenant in tenant mode', async () => {
    expect(await fifoFields(delivery('d-1', { tenant: 'site-a' }), 'post-7')).toEqual({
      MessageGroupId: 'tenant:6:site-a:article:post-7',
      MessageDeduplicationId: 'tenant:6:site-a:d-1',
    });
  });

  it('keeps an id of 128 characters, hashes one of 129 or one with characters SQS refuses', async () => {
    const at = 'a'.repeat(128);
    expect((await fifoFields(delivery(at), undefined)).MessageDeduplicationId).toBe(at);
    const over = await fifoFields(delivery(`${at}b`), undefined);
    expect(over.MessageDeduplicationId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await fifoFields(delivery(`${at}c`), undefined)).MessageDeduplicationId).not.toBe(
      over.MessageDeduplicationId,
    );
    expect((await fifoFields(delivery('d 1 é'), undefined)).MessageDeduplicationId).toMatch(/^sha256:/);
  });

  it('puts an event without an article in a group of its own, and a delivery without an id gets a fresh one', async () => {
    expect(await fifoFields(delivery('d-2'), undefined)).toEqual({
      MessageGroupId: 'd-2',
      MessageDeduplicationId: 'd-2',
    });
    const [a, b] = [await fifoFields(delivery(null), undefined), await fifoFields(delivery(null), undefined)];
    expect(a.MessageDeduplicationId).not.toBe(b.MessageDeduplicationId);
  });
});
