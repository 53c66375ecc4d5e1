import { afterEach, describe, expect, it } from 'vitest';
import { deliver, articleSyncPayload, testPayload, type DeliveryAttempt } from 'webhook-cms-receiver/testing';
import { deadUrl, startEndpoint, type Endpoint } from './endpoint.js';

const token = 'deliver-test-token';
const published = {
  'article.sync': ({ article }: { article: { slug: string } }) => ({
    publishedUrl: `https://blog.example.com/${article.slug}`,
  }),
};
const failing = () => {
  throw new Error('database down');
};
/** The handlers fail on purpose: their errors are expected, so they are not logged. */
const expected = () => {};
/** Fails `times` times, then publishes. */
const failingTimes = (times: number) => {
  let calls = 0;
  return {
    'article.sync': () => {
      if (++calls <= times) throw new Error('database down');
      return { publishedUrl: 'https://blog.example.com/finally' };
    },
  };
};
const scale = 0.02; // 2, 5, 10 s become 40, 100, 200 ms; the 10 s timeout becomes 200 ms

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('deliver()', () => {
  it('delivers a signed article.sync in one attempt and surfaces published_url', async () => {
    endpoint = await startEndpoint({ token }, published);
    const result = await deliver(endpoint.webhookUrl, { token, payload: articleSyncPayload() });
    expect(result.outcome).toBe('delivered');
    expect(result.publishedUrl).toBe('https://blog.example.com/ten-seo-tips');
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({
      number: 1,
      status: 200,
      error: null,
      retryInMs: null,
      body: { ok: true, published_url: 'https://blog.example.com/ten-seo-tips' },
    });
    expect(endpoint.requests[0]!.headers).toMatchObject({
      'x-service-event': 'article.sync',
      'x-service-delivery-id': result.deliveryId,
    });
  });

  it('retries a failing endpoint on the service schedule (scaled) and gives up after 4 attempts', async () => {
    endpoint = await startEndpoint({ token, onError: expected }, { 'article.sync': failing });
    // 1 s per attempt rather than 200 ms: a loaded CI machine can take longer than that to answer.
    const slower = 0.1;
    const result = await deliver(endpoint.webhookUrl, { token, payload: articleSyncPayload(), timeScale: slower });
    expect(result.outcome).toBe('gave-up');
    expect(result.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 500]);
    expect(result.attempts.map((attempt) => attempt.retryInMs)).toEqual([
      2000 * slower,
      5000 * slower,
      10000 * slower,
      null,
    ]);
    for (let i = 1; i < result.attempts.length; i++) {
      const previous = result.attempts[i - 1]!;
      const waited = result.attempts[i]!.startedAtMs - (previous.startedAtMs + previous.elapsedMs);
      expect(waited).toBeGreaterThanOrEqual(previous.retryInMs! - 1); // timers may round down by 1 ms
    }
    expect(endpoint.requests).toHaveLength(4);
  });

  it('stops at the first 2xx, resending the same delivery id with a fresh timestamp and signature', async () => {
    endpoint = await startEndpoint({ token, onError: expected }, failingTimes(1));
    // 0.6 puts the retry 1.2 s after the first attempt, so the timestamps fall in different seconds.
    const result = await deliver(endpoint.webhookUrl, { token, payload: articleSyncPayload(), timeScale: 0.6 });
    expect(result.outcome).toBe('delivered');
    expect(result.publishedUrl).toBe('https://blog.example.com/finally');
    expect(result.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
    const [first, second] = endpoint.requests.map((request) => request.headers);
    expect(second!['x-service-delivery-id']).toBe(first!['x-service-delivery-id']);
    expect(Number(second!['x-service-timestamp'])).toBeGreaterThan(Number(first!['x-service-timestamp']));
    expect(second!['x-service-signature']).not.toBe(first!['x-service-signature']);
    expect(result.attempts.map((attempt) => attempt.timestamp)).toEqual([
      first!['x-service-timestamp'],
      second!['x-service-timestamp'],
    ]);
  });

  it('does not retry a 401: a wrong token is refused once', async () => {
    endpoint = await startEndpoint({ token }, published);
    const result = await deliver(endpoint.webhookUrl, {
      token,
      payload: articleSyncPayload(),
      wrongToken: true,
      timeScale: scale,
    });
    expect(result.outcome).toBe('refused');
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({ status: 401, body: { error: 'Invalid token' }, retryInMs: null });
    expect(endpoint.requests[0]!.headers.authorization).not.toBe(`Bearer ${token}`);
  });

  it('does not retry a 403: a tampered body is refused once as Invalid signature', async () => {
    endpoint = await startEndpoint({ token }, published);
    const payload = articleSyncPayload();
    const result = await deliver(endpoint.webhookUrl, { token, payload, tamper: true, timeScale: scale });
    expect(result.outcome).toBe('refused');
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({ status: 403, body: { error: 'Invalid signature' } });
    const sent = endpoint.requests[0]!.body;
    expect(sent).not.toBe(JSON.stringify(payload));
    expect(sent).toHaveLength(JSON.stringify(payload).length);
  });

  it('back-dates the signed timestamp by staleBy seconds: 600 s is refused as Request expired', async () => {
    endpoint = await startEndpoint({ token }, published);
    const result = await deliver(endpoint.webhookUrl, {
      token,
      payload: articleSyncPayload(),
      staleBy: 600,
      timeScale: scale,
    });
    expect(result.outcome).toBe('refused');
    expect(result.attempts[0]).toMatchObject({ status: 403, body: { error: 'Request expired' } });
    expect(Math.floor(Date.now() / 1000) - Number(result.attempts[0]!.timestamp)).toBeGreaterThanOrEqual(600);
  });

  it('counts an endpoint that never answers as a failed attempt after the (scaled) 10 s timeout', async () => {
    const never = () => new Promise<never>(() => {});
    endpoint = await startEndpoint({ token, dedup: false }, { 'article.sync': never });
    const result = await deliver(endpoint.webhookUrl, { token, payload: articleSyncPayload(), timeScale: scale });
    expect(result.outcome).toBe('gave-up');
    expect(result.attempts).toHaveLength(4);
    for (const attempt of result.attempts) {
      expect(attempt.status).toBeNull();
      expect(attempt.error).toMatch(/no answer within 200 ms/);
      expect(attempt.elapsedMs).toBeGreaterThanOrEqual(199);
    }
  });

  it('retries an unreachable URL and says nothing is listening there', async () => {
    const url = await deadUrl();
    const result = await deliver(url, { token, payload: testPayload(), timeScale: scale });
    expect(result.outcome).toBe('gave-up');
    expect(result.attempts).toHaveLength(4);
    expect(result.attempts[0]!.error).toBe(`nothing is listening at ${url}; is your server running? (ECONNREFUSED)`);
  });

  it('reports each attempt through onAttempt as it happens, before the next one starts', async () => {
    endpoint = await startEndpoint({ token, onError: expected }, failingTimes(2));
    const seen: [DeliveryAttempt, number][] = [];
    const result = await deliver(endpoint.webhookUrl, {
      token,
      payload: articleSyncPayload(),
      timeScale: scale,
      onAttempt: (attempt) => seen.push([attempt, endpoint!.requests.length]),
    });
    expect(seen.map(([attempt]) => attempt)).toEqual(result.attempts);
    expect(seen.map(([, requestsSoFar]) => requestsSoFar)).toEqual([1, 2, 3]);
  });

  it('sends a raw string payload byte for byte, with the event header taken from it', async () => {
    endpoint = await startEndpoint({ token });
    const raw = '{ "event": "test",   "timestamp": 1700000000, "article": null, "profile": null }\n';
    const result = await deliver(endpoint.webhookUrl, { token, payload: raw, deliveryId: 'fixed-id' });
    expect(result.outcome).toBe('delivered');
    expect(endpoint.requests[0]).toMatchObject({
      body: raw,
      headers: { 'x-service-event': 'test', 'x-service-delivery-id': 'fixed-id' },
    });
  });

  it('says in the summary when ordering skipped a delivery as stale', async () => {
    endpoint = await startEndpoint({ token, ordering: true }, published);
    const now = Math.floor(Date.now() / 1000);
    const newer = articleSyncPayload({ timestamp: now });
    const older = articleSyncPayload({ timestamp: now - 30, article: { id: newer.article.id } });
    const applied = await deliver(endpoint.webhookUrl, { token, payload: newer, timeScale: scale });
    expect(applied.summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl: 'https://blog.example.com/ten-seo-tips',
    });
    const skipped = await deliver(endpoint.webhookUrl, { token, payload: older, timeScale: scale });
    expect(skipped.summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl: null, stale: true });
  });

  it('sums up each ending: delivered, duplicate, refused and gave up', async () => {
    endpoint = await startEndpoint({ token }, published);
    const options = { token, payload: articleSyncPayload(), deliveryId: 'summary-1', timeScale: scale };
    const publishedUrl = 'https://blog.example.com/ten-seo-tips';
    expect((await deliver(endpoint.webhookUrl, options)).summary).toEqual({
      ok: true,
      duplicate: false,
      status: 200,
      publishedUrl,
    });
    expect((await deliver(endpoint.webhookUrl, options)).summary).toEqual({
      ok: true,
      duplicate: true,
      status: 200,
      publishedUrl,
    });
    const refused = await deliver(endpoint.webhookUrl, { ...options, deliveryId: undefined, tamper: true });
    expect(refused.summary).toEqual({
      ok: false,
      duplicate: false,
      status: 403,
      publishedUrl: null,
      reason: expect.stringMatching(
        /^403 Invalid signature: the signature or the timestamp did not verify; diagnoseDelivery/,
      ),
    });
    const url = await deadUrl();
    const gaveUp = await deliver(url, { ...options, maxAttempts: 1 });
    expect(gaveUp.summary).toEqual({
      ok: false,
      duplicate: false,
      status: null,
      publishedUrl: null,
      reason: `no answer: nothing is listening at ${url}; is your server running? (ECONNREFUSED)`,
    });
  });

  it('stops after maxAttempts', async () => {
    endpoint = await startEndpoint({ token, onError: expected }, { 'article.sync': failing });
    const result = await deliver(endpoint.webhookUrl, {
      token,
      payload: articleSyncPayload(),
      maxAttempts: 2,
      timeScale: scale,
    });
    expect(result.outcome).toBe('gave-up');
    expect(result.attempts.map((attempt) => [attempt.status, attempt.retryInMs])).toEqual([
      [500, 2000 * scale],
      [500, null],
    ]);
  });

  it('sends through the fetch it is given', async () => {
    endpoint = await startEndpoint({ token });
    const urls: string[] = [];
    const result = await deliver(endpoint.webhookUrl, {
      token,
      payload: testPayload(),
      fetch: (url, init) => {
        urls.push(url);
        return fetch(url, init);
      },
    });
    expect(result.outcome).toBe('delivered');
    expect(urls).toEqual([endpoint.webhookUrl]);
  });

  it('refuses a URL that is not http(s), a missing token and an impossible maxAttempts, naming the fix', async () => {
    await expect(deliver('localhost:3000/webhook', { token, payload: testPayload() })).rejects.toThrow(
      /not an http\(s\) URL.*http:\/\/127\.0\.0\.1:3000\/webhook/,
    );
    await expect(deliver('http://127.0.0.1:1/webhook', { token: '', payload: testPayload() })).rejects.toThrow(
      /token must be a non-empty string/,
    );
    await expect(
      deliver('http://127.0.0.1:1/webhook', { token, payload: testPayload(), maxAttempts: 5 }),
    ).rejects.toThrow(/maxAttempts must be 1, 2, 3 or 4/);
  });
});
