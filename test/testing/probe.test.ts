import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookHandlers } from 'webhook-cms-receiver';
import { isPublic } from 'webhook-cms-receiver/publish';
import { type ProbeResult, probeEndpoint } from 'webhook-cms-receiver/testing';
import { deadUrl } from './endpoint.js';
import { expressTarget, nodeTarget, type ProbeTarget, remappedTarget, sloppyTarget } from './probe-endpoints.js';

const token = 'probe-test-token-8c1f2e';
const READ_ONLY = [
  'test event',
  'redelivery',
  'wrong token',
  'bad signature',
  'stale timestamp',
  'future timestamp',
  'bad timestamp format',
  'GET',
  'https',
  'answer time',
];
const WRITES = ['sync', 'redelivered sync', 'concurrent copies', 'trash'];

let endpoint: ProbeTarget | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** Every handler call, so a test can see what the probe changed. */
function recording() {
  const calls: string[] = [];
  const handlers: WebhookHandlers = {
    'article.sync': ({ article }) => {
      calls.push(`sync ${article.slug}`);
      // The probe's article is a draft: published_url only for a public one, as the contract says.
      return isPublic(article) ? { publishedUrl: `https://blog.example.com/${article.slug}` } : undefined;
    },
    'article.trash': ({ article }) => void calls.push(`trash ${article.slug}`),
    test: () => void calls.push('test'),
  };
  return { calls, handlers };
}

const failed = (result: ProbeResult) => result.rows.filter((row) => row.result === 'fail').map((row) => row.name);
const row = (result: ProbeResult, name: string) => result.rows.find((r) => r.name === name)!;

describe('probeEndpoint() against correct endpoints', () => {
  it("passes an Express starter-style endpoint without changing data, GET included (404 from the README's app.post)", async () => {
    const { calls, handlers } = recording();
    endpoint = await expressTarget({ token }, handlers);
    const seen: string[] = [];
    const result = await probeEndpoint(endpoint.webhookUrl, { token, onRow: (r) => seen.push(r.name) });
    expect(result.rows.map((r) => r.name)).toEqual(READ_ONLY);
    expect(seen).toEqual(READ_ONLY);
    expect(failed(result)).toEqual([]);
    expect(result.ok).toBe(true);
    expect(row(result, 'GET')).toMatchObject({
      result: 'pass',
      reason: expect.stringMatching(/^404 .*only POST \(app\.post, as in the README\).*the service only POSTs/),
    });
    expect(row(result, 'test event').reason).toMatch(/^200 \{"ok":true\} in \d+ ms$/);
    expect(row(result, 'bad signature').reason).toMatch(/^403 \{"error":"Invalid signature"\}/);
    expect(row(result, 'stale timestamp').reason).toMatch(/^403 \{"error":"Request expired"\}/);
    expect(row(result, 'bad timestamp format').reason).toMatch(/^403 \{"error":"Invalid timestamp"\}/);
    // Only test events ran: the default probe changes no data.
    expect(calls).toEqual(['test']);
  });

  it('passes every row of a node:http endpoint in writes mode, with one probe article synced once and trashed', async () => {
    const { calls, handlers } = recording();
    endpoint = await nodeTarget({ token }, handlers);
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(result.rows.map((r) => r.name)).toEqual([...READ_ONLY.slice(0, -1), ...WRITES, 'answer time']);
    expect(result.rows.filter((r) => r.result !== 'pass')).toEqual([]);
    expect(row(result, 'GET').reason).toContain('Allow: POST');
    expect(row(result, 'redelivered sync').reason).toContain('"duplicate":true');
    expect(row(result, 'concurrent copies').reason).toMatch(/the handler ran once$/);
    const slug = calls[1]!.slice('sync '.length);
    expect(slug).toMatch(/^webhook-cms-probe-[0-9a-f]{8}$/);
    // One run for the first sync, one for the concurrent copies (their own delivery id), then the trash.
    expect(calls).toEqual(['test', `sync ${slug}`, `sync ${slug}`, `trash ${slug}`]);
  });

  it('passes an endpoint with ordering on: the trash comes after the syncs', async () => {
    const { handlers } = recording();
    endpoint = await nodeTarget({ token, ordering: true }, handlers);
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(failed(result)).toEqual([]);
  });
});

describe('probeEndpoint() against a tenant-mode endpoint (many sites, one endpoint)', () => {
  const site = { id: 'site-probe', token, profileId: 'prof-probe', domain: 'probe.example.com' };

  it('writes articles naming the given profile, so every row passes; without it the site answers 403', async () => {
    const { calls, handlers } = recording();
    endpoint = await nodeTarget({ tenants: () => site, ordering: true }, handlers);
    const bound = await probeEndpoint(endpoint.webhookUrl, {
      token,
      writes: true,
      profile: { id: 'prof-probe', domain: 'probe.example.com' },
    });
    expect(failed(bound)).toEqual([]);
    expect(calls.filter((call) => call.startsWith('sync'))).toHaveLength(2);
    const unbound = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(row(unbound, 'sync')).toMatchObject({
      result: 'fail',
      reason: expect.stringContaining('403 {"error":"Profile mismatch"}'),
    });
  });

  it('refuses a profile without an id or a domain, naming the fix', async () => {
    await expect(probeEndpoint('http://127.0.0.1:1/', { token, profile: { id: 'p' } as never })).rejects.toThrow(
      /profile must be \{ id: string, domain: string \}/,
    );
  });
});

describe('probeEndpoint() against endpoints wrong on purpose: it fails and names the row', () => {
  it('an endpoint that accepts any signature fails "bad signature"', async () => {
    endpoint = await sloppyTarget(token, { signature: true });
    const result = await probeEndpoint(endpoint.webhookUrl, { token });
    expect(result.ok).toBe(false);
    expect(failed(result)).toEqual(['bad signature']);
    expect(row(result, 'bad signature').reason).toContain('accepted a signature made over other bytes');
  });

  it('an endpoint that answers 200 to stale timestamps fails "stale timestamp" (and the future one)', async () => {
    endpoint = await sloppyTarget(token, { window: true });
    const result = await probeEndpoint(endpoint.webhookUrl, { token });
    expect(failed(result)).toEqual(['stale timestamp', 'future timestamp']);
    expect(row(result, 'stale timestamp').reason).toContain('accepted a timestamp 600 s old');
  });

  it('an endpoint that runs a redelivered id twice fails "redelivered sync" and "concurrent copies" in writes mode', async () => {
    const { calls, handlers } = recording();
    endpoint = await nodeTarget({ token, dedup: false }, handlers);
    const readOnly = await probeEndpoint(endpoint.webhookUrl, { token });
    expect(failed(readOnly)).toEqual([]);
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(failed(result)).toEqual(['redelivered sync', 'concurrent copies']);
    expect(row(result, 'redelivered sync').reason).toContain('the handler ran the same delivery id twice');
    expect(row(result, 'concurrent copies').reason).toContain('the handler ran 5 times for one delivery id');
    expect(calls.filter((call) => call.startsWith('sync'))).toHaveLength(7);
  });

  it('an endpoint that answers 401 to a bad signature fails "bad signature", saying 401 means a wrong token', async () => {
    endpoint = await remappedTarget({ token }, {}, (status, body) =>
      status === 403 && (body as { error?: string }).error === 'Invalid signature' ? 401 : status,
    );
    const result = await probeEndpoint(endpoint.webhookUrl, { token });
    expect(failed(result)).toEqual(['bad signature']);
    expect(row(result, 'bad signature').reason).toMatch(/^401 .*expected 403; 401 means a wrong token/);
  });

  it('an endpoint that takes 12 s fails "answer time" at the service\'s 10 s limit', async () => {
    const slow: WebhookHandlers = { test: () => new Promise((resolve) => setTimeout(resolve, 12_000)) };
    endpoint = await nodeTarget({ token }, slow);
    const started = Date.now();
    const result = await probeEndpoint(endpoint.webhookUrl, { token });
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(row(result, 'answer time')).toMatchObject({
      result: 'fail',
      reason: expect.stringContaining('no answer within 10000 ms to: test event'),
    });
    expect(row(result, 'test event')).toMatchObject({
      result: 'fail',
      reason: expect.stringContaining('no answer within 10000 ms'),
    });
    // The refusals come before the handler, so they are still answered at once.
    expect(row(result, 'bad signature').result).toBe('pass');
  }, 30_000);

  it('fails the test event with a path hint for a 404, and every row for a dead URL', async () => {
    endpoint = await expressTarget({ token }, {});
    const wrongPath = await probeEndpoint(`${endpoint.url}/webhooks`, { token });
    expect(row(wrongPath, 'test event').reason).toContain(`is the path right? tried POST ${endpoint.url}/webhooks`);
    expect(row(wrongPath, 'test event').reason).toContain('(an HTML page,');
    const url = await deadUrl();
    const dead = await probeEndpoint(url, { token });
    expect(row(dead, 'test event').reason).toContain(`nothing is listening at ${url}`);
    expect(row(dead, 'answer time')).toMatchObject({ result: 'fail', reason: 'no request got an answer' });
  });

  it('never puts the token in a row, even from an endpoint that echoes Authorization back', async () => {
    endpoint = await sloppyTarget(token, { echo: true });
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(row(result, 'test event').reason).toContain('"authorization":"Bearer ***"');
    expect(JSON.stringify(result)).not.toContain(token);
  });

  it('refuses a URL that is not http(s) and a missing token, naming the fix', async () => {
    await expect(probeEndpoint('localhost:3000/webhook', { token })).rejects.toThrow(/not an http\(s\) URL/);
    await expect(probeEndpoint('http://127.0.0.1:1/webhook', { token: '' })).rejects.toThrow(/token must be/);
  });
});
