import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver, type DedupStore, memoryDedupStore } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_logging_test_token_0123456789';

function consoleErrors() {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  return {
    lines: () =>
      spy.mock.calls.map((args) => args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' ')),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('failures are never silent without onError (contract v2)', () => {
  it('logs a throwing handler once: event name, delivery id and the error, never the token or payload', async () => {
    const errors = consoleErrors();
    const delivery = signDelivery({
      token,
      payload: articleSyncPayload({ article: { title: 'Secret draft title' } }),
      deliveryId: 'd-throws',
    });
    const answer = await createReceiver({ token }).handle(delivery, {
      'article.sync': () => {
        throw new Error('database is read-only');
      },
    });
    expect(answer).toEqual({ status: 500, body: { error: 'Handler failed' } });
    const lines = errors.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/article\.sync delivery d-throws: Error: database is read-only/);
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).not.toContain('Secret draft title');
    expect(lines[0]).not.toContain(delivery.headers['X-Service-Signature']!.slice(7));
  });

  it('logs a failing store once, with the 503', async () => {
    const errors = consoleErrors();
    const down: DedupStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
      complete: () => undefined,
      release: () => undefined,
    };
    const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'd-store' });
    expect((await createReceiver({ token, dedup: down }).handle(delivery, {})).status).toBe(503);
    expect(errors.lines()).toHaveLength(1);
    expect(errors.lines()[0]).toMatch(
      /d-store: dedup_unavailable: the dedup store failed to claim: Error: ECONNREFUSED/,
    );
  });

  it('reports live ids the memory store dropped at its bound once per burst, through onError', async () => {
    const onError = vi.fn();
    const receiver = createReceiver({ token, dedup: memoryDedupStore({ maxEntries: 2 }), onError });
    for (let i = 0; i < 6; i++) {
      const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: `burst-${i}` });
      expect((await receiver.handle(delivery, {})).status).toBe(200);
    }
    expect(onError).toHaveBeenCalledTimes(1);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/dropped 1 delivery id\(s\).*maxEntries=2/);
  });
});
