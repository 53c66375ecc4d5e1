import { describe, expect, it, vi } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_handler_results_token';
const answerFor = async (result: unknown) =>
  (
    await createReceiver({ token }).handle(signDelivery({ token, payload: articleSyncPayload() }), {
      'article.sync': () => result,
    })
  ).body;

describe('what a handler returns', () => {
  it('answers published_url from publishedUrl, or from published_url', async () => {
    expect(await answerFor({ publishedUrl: 'https://x/camel' })).toEqual({
      ok: true,
      published_url: 'https://x/camel',
    });
    expect(await answerFor({ published_url: 'https://x/snake' })).toEqual({
      ok: true,
      published_url: 'https://x/snake',
    });
    expect(await answerFor(Promise.resolve({ published_url: 'https://x/later' }))).toEqual({
      ok: true,
      published_url: 'https://x/later',
    });
  });

  it('prefers publishedUrl when both are set, and falls back to published_url only when publishedUrl is absent', async () => {
    expect(await answerFor({ publishedUrl: 'https://x/a', published_url: 'https://x/b' })).toEqual({
      ok: true,
      published_url: 'https://x/a',
    });
    expect(await answerFor({ publishedUrl: null, published_url: 'https://x/b' })).toEqual({
      ok: true,
      published_url: 'https://x/b',
    });
  });

  it('answers plain ok for anything else: nothing, null, a string, a number, a URL that is not a string', async () => {
    for (const result of [undefined, null, 'https://x/string', 42, { publishedUrl: 7 }, { other: 'https://x' }]) {
      expect(await answerFor(result), String(result)).toEqual({ ok: true });
    }
  });

  it('acknowledges an event whose handler entry is not a function', async () => {
    const receiver = createReceiver({ token });
    const delivery = signDelivery({ token, payload: articleSyncPayload() });
    expect(await receiver.handle(delivery, { 'article.sync': 'not a function' as never })).toEqual({
      status: 200,
      body: { ok: true },
    });
  });

  it('calls the handler unbound, with the event and a context carrying an abort signal', async () => {
    let seenThis: unknown = 'unset';
    const handler = vi.fn(function (this: unknown) {
      seenThis = this;
    });
    const handlers = { 'article.sync': handler };
    await createReceiver({ token }).handle(
      signDelivery({ token, payload: articleSyncPayload(), deliveryId: 'ctx' }),
      handlers,
    );
    expect(seenThis).toBeUndefined();
    const [event, context] = handler.mock.calls[0] as unknown as [{ deliveryId: string }, { signal: AbortSignal }];
    expect(event.deliveryId).toBe('ctx');
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(context.signal.aborted).toBe(false);
  });
});
