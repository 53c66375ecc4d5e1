// Run by Bun's test runner (`bun test ./test/recipes/elysia-vectors.bun.mjs`, from
// test/recipes/elysia.test.ts): serves the Elysia recipe as it is and sends it the shared
// signed vectors over real HTTP, with Bun's clock set to each vector's `now`.
import { afterAll, expect, setSystemTime, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const { app } = await import('../../examples/recipes/elysia/server.ts');
const file = JSON.parse(readFileSync(new URL('../fixtures/deliveries.json', import.meta.url), 'utf8'));
// The recipe's receiver holds one token (WEBHOOK_TOKEN); the rotation vectors need two.
const vectors = file.vectors.filter((vector) => vector.tokens.length === 1);
if (vectors.some((vector) => vector.tokens[0] !== process.env.WEBHOOK_TOKEN))
  throw new Error('Set WEBHOOK_TOKEN to the vectors’ token.');

app.listen({ port: 0, hostname: '127.0.0.1' });
const url = `http://127.0.0.1:${app.server.port}/webhook`;
afterAll(async () => {
  setSystemTime();
  await app.stop();
});

for (const vector of vectors) {
  test(vector.name, async () => {
    setSystemTime(new Date(vector.now * 1000));
    const body = Buffer.from(vector.body_base64, 'base64');
    const response = await fetch(url, { method: 'POST', headers: vector.headers, body });
    const answer = { status: response.status, body: await response.json() };
    if (vector.expect.status !== 200)
      expect(answer).toEqual({ status: vector.expect.status, body: { error: vector.expect.error } });
    else expect(answer).toMatchObject({ status: 200, body: { ok: true } });
  });
}

test('article.sync answers the published_url from the recipe’s handlers once the article is public', async () => {
  const vector = vectors.find((candidate) => candidate.name === 'valid article.sync');
  const body = Buffer.from(vector.body_base64, 'base64');
  // At the vector's own moment its article is scheduled (published_at a year ahead): no URL.
  setSystemTime(new Date(vector.now * 1000));
  const headers = { ...vector.headers, 'X-Service-Delivery-Id': crypto.randomUUID() };
  const scheduled = await fetch(url, { method: 'POST', headers, body });
  expect(await scheduled.json()).toEqual({ ok: true });
  // Signed again at a moment past published_at, as the service would sign a later sync.
  const now = Math.floor(Date.parse(JSON.parse(body).article.published_at) / 1000) + 60;
  setSystemTime(new Date(now * 1000));
  const signature = createHmac('sha256', process.env.WEBHOOK_TOKEN).update(`${now}.`).update(body).digest('hex');
  const later = {
    ...headers,
    'X-Service-Timestamp': String(now),
    'X-Service-Signature': `sha256=${signature}`,
    'X-Service-Delivery-Id': crypto.randomUUID(),
  };
  const response = await fetch(url, { method: 'POST', headers: later, body });
  expect(await response.json()).toEqual({ ok: true, published_url: 'https://blog.example.com/ten-seo-tips' });
});

test('any other method answers 405 with Allow: POST', async () => {
  const response = await fetch(url);
  expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST']);
});
