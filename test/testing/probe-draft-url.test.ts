import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookHandlers } from 'webhook-cms-receiver';
import { isPublic } from 'webhook-cms-receiver/publish';
import { probeEndpoint } from 'webhook-cms-receiver/testing';
import { expressTarget, type ProbeTarget } from './probe-endpoints.js';

const token = 'probe-draft-url-token-7a2d';
let endpoint: ProbeTarget | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const url = (slug: string) => ({ publishedUrl: `https://blog.example.com/${slug}` });

describe('probeEndpoint({ writes: true }) and published_url', () => {
  it('fails an endpoint that answers a published_url for a draft (the quick start before issue 46)', async () => {
    const handlers: WebhookHandlers = { 'article.sync': ({ article }) => url(article.slug) };
    endpoint = await expressTarget({ token }, handlers);
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(result.ok).toBe(false);
    expect(result.rows.filter((row) => row.result === 'fail').map((row) => row.name)).toEqual(['sync']);
    expect(result.rows.find((row) => row.name === 'sync')!.reason).toMatch(
      /^article webhook-cms-probe-[0-9a-f]{8} \(a draft\): 200 \{"ok":true,"published_url":"https:\/\/blog\.example\.com\/webhook-cms-probe-[0-9a-f]{8}"\} in \d+ ms: a published_url for a draft, .*isPublic\(article\)/,
    );
  });

  it('passes one that answers published_url only for a public article', async () => {
    const handlers: WebhookHandlers = {
      'article.sync': ({ article }) => (isPublic(article) ? url(article.slug) : undefined),
    };
    endpoint = await expressTarget({ token }, handlers);
    const result = await probeEndpoint(endpoint.webhookUrl, { token, writes: true });
    expect(result.rows.filter((row) => row.result === 'fail')).toEqual([]);
    expect(result.rows.find((row) => row.name === 'sync')).toMatchObject({ result: 'pass' });
  });
});
