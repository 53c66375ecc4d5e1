import { afterEach, describe, expect, it } from 'vitest';
import { deliver, probeEndpoint, testPayload } from 'webhook-cms-receiver/testing';
import type { RunningServer } from '../helpers/listen.js';
import { countingServer, endlessServer, failingServer, redirectingServer } from './hostile-servers.js';

const token = 'answer-limits-token-3e9d';
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const started = <T extends RunningServer>(server: T): T => {
  servers.push(server);
  return server;
};

describe('the tools read at most 64 KiB of an answer and cancel the rest', () => {
  it('deliver() returns the status of an endless answer and closes its connection', async () => {
    const endless = started(await endlessServer());
    // 2 s: long enough that the status and 64 KiB arrive, short enough that reading everything would time out.
    const result = await deliver(`${endless.url}/webhook`, {
      token,
      payload: testPayload(),
      maxAttempts: 1,
      timeScale: 0.2,
    });
    const [attempt] = result.attempts;
    expect(attempt).toMatchObject({ status: 200, error: null, bodyTruncated: true });
    expect(typeof attempt!.body).toBe('string');
    expect((attempt!.body as string).length).toBeLessThanOrEqual(64 * 1024);
    expect(result.outcome).toBe('delivered');
    await expect.poll(() => endless.closedByClient).toBe(1);
  });

  it('probeEndpoint() gets an answer to every row from an endless server and closes every connection', async () => {
    const endless = started(await endlessServer());
    const result = await probeEndpoint(`${endless.url}/webhook`, { token, timeoutMs: 2_000 });
    const timedOut = result.rows.filter((row) => /no answer/.test(row.reason)).map((row) => row.name);
    expect(timedOut).toEqual([]);
    expect(result.rows.find((row) => row.name === 'test event')).toMatchObject({ result: 'warn' });
    await expect.poll(() => endless.closedByClient).toBe(endless.requests);
  });
});

describe('deliver() follows no redirect, as the service follows none', () => {
  it('reports a 307 to another host as a failure naming the status and its Location, and never reaches it', async () => {
    const elsewhere = started(await countingServer());
    const location = `${elsewhere.url}/webhook`;
    const redirecting = started(await redirectingServer(307, location));
    const result = await deliver(`${redirecting.url}/webhook`, { token, payload: testPayload(), maxAttempts: 1 });
    expect(elsewhere.requests).toBe(0);
    expect(result.outcome).toBe('gave-up');
    expect(result.attempts[0]).toMatchObject({ status: 307, location });
    expect(result.summary).toEqual({
      ok: false,
      duplicate: false,
      status: 307,
      publishedUrl: null,
      reason: expect.stringContaining(`307 redirect to ${location}`),
    });
    expect(result.summary.reason).toMatch(/follows no redirect/);
  });
});

describe('deliver().summary says why a delivery failed', () => {
  it('names a 500 and where to look', async () => {
    const failing = started(await failingServer());
    const { summary } = await deliver(`${failing.url}/webhook`, { token, payload: testPayload(), maxAttempts: 1 });
    expect(summary).toMatchObject({ ok: false, status: 500 });
    expect(summary.reason).toMatch(/500 Internal error.*server's log.*onError/);
  });

  it('has no reason when the delivery succeeded, so toEqual on the four facts still holds', async () => {
    const ok = started(await countingServer());
    const { summary } = await deliver(`${ok.url}/webhook`, { token, payload: testPayload() });
    expect(summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl: null });
  });
});
