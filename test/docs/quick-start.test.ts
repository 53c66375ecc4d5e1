import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleFixture, articleSyncPayload, probeEndpoint, signDelivery } from 'webhook-cms-receiver/testing';
import { allBlocks } from '../../scripts/doc-blocks.mjs';
import { serveBlock } from './block-process.js';

// The README's quick start, run as written (the first code every user copies): it must show
// only what /publish calls public and answer published_url only for a public article.
const root = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'quick-start-token-5b0e';
const quickStart = allBlocks(root).find((block) => block.doc === 'README.md' && block.lang === 'ts');
const scratch = join(root, '.scratch', `quick-start-${process.pid}`);
let url = '';
let stop: (() => Promise<unknown>) | undefined;

beforeAll(async () => {
  mkdirSync(scratch, { recursive: true });
  const served = await serveBlock(quickStart!, {
    scratch,
    name: 'readme-quick-start',
    env: { ...process.env, WEBHOOK_TOKEN: TOKEN, NODE_NO_WARNINGS: '1' },
  });
  stop = served.stop;
  url = `http://127.0.0.1:${served.ports[0]}/webhook`;
});
afterAll(async () => {
  await stop?.();
  rmSync(scratch, { recursive: true, force: true });
});

async function sync(article: ReturnType<typeof articleFixture>) {
  const { headers, body } = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article }) });
  const answer = await fetch(url, { method: 'POST', headers, body });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

describe("the README's quick start", () => {
  it('is the Express block that serves /webhook', () => {
    expect(quickStart?.code).toContain("app.post('/webhook', webhookHandler(receiver, handlers))");
  });

  it('answers published_url for a published article, and none for a draft or a schedule still ahead', async () => {
    expect(await sync(articleFixture({ slug: 'live' }))).toEqual({
      status: 200,
      body: { ok: true, published_url: 'https://blog.example.com/live' },
    });
    const draft = articleFixture({ slug: 'draft', status: 'draft', published_at: null });
    expect(await sync(draft)).toEqual({ status: 200, body: { ok: true } });
    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    expect(await sync(articleFixture({ slug: 'soon', scheduled_at: ahead }))).toEqual({
      status: 200,
      body: { ok: true },
    });
  });

  it('passes probe --writes, whose probe article is a draft', async () => {
    const result = await probeEndpoint(url, { token: TOKEN, writes: true });
    expect(result.rows.filter((row) => row.result === 'fail')).toEqual([]);
  });
});
