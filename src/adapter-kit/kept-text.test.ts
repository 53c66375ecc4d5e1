import { describe, expect, it } from 'vitest';
import { createReceiver, serveRequest } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

// A body a host kept as text (Koa's ctx.request.rawBody, a Lambda body) is compared, by its
// UTF-8 length, with the declared Content-Length: a parser that dropped a byte-order mark or
// replaced invalid UTF-8 changed the bytes, which is a 400 (check 6), not a 403 for a
// signature the text can no longer match.

const TOKEN = 'whk_kept_text_test_token_0123456789';
const receiver = createReceiver({ token: TOKEN, dedup: false });
// Every UTF-8 length: 1 (ASCII), 2 (é), 3 (検, U+FFFD) and 4 (🚀, a surrogate pair in the text).
const title = 'Café 検索 🚀 done';

function serveText(text: string, declared: number) {
  const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { title } }) });
  const headers = { ...delivery.headers, 'Content-Length': String(declared) };
  return serveRequest(receiver, { method: 'POST', headers, body: () => text }, { 'article.sync': () => {} });
}

describe('a body kept as text', () => {
  const body = JSON.stringify(articleSyncPayload({ article: { title } }));
  const length = new TextEncoder().encode(body).byteLength;

  // A surrogate pair counts as the 4 bytes it came from, not as two 3-byte characters.
  it('is verified when its UTF-8 length is the declared one, characters of every length included', async () => {
    const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { title } }) });
    const text = delivery.body as string;
    const headers = { ...delivery.headers, 'Content-Length': String(new TextEncoder().encode(text).byteLength) };
    const answer = await serveRequest(
      receiver,
      { method: 'POST', headers, body: () => text },
      {
        'article.sync': () => {},
      },
    );
    expect(answer.status).toBe(200);
  });

  it('answers 400 when decoding changed its length: a byte-order mark dropped, an invalid byte replaced', async () => {
    // A BOM (3 bytes) dropped by the parser: the text is 3 bytes short of what was declared.
    expect((await serveText(body, length + 3)).status).toBe(400);
    // One invalid byte became U+FFFD: 3 bytes where 1 was declared.
    expect((await serveText(body.replace('done', 'd\ufffdne'), length)).status).toBe(400);
  });
});
