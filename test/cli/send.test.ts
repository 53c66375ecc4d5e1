import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/listen.js';
import { deadUrl } from '../testing/endpoint.js';
import { expressEndpoint } from './endpoint.js';
import { finished, runCli, spawnCli } from './run-cli.js';

const token = 'cli-secret-token-5f2a9c';
let runs: string[] = [];
const handlers = {
  'article.sync': ({ article }: { article: { slug: string } }) => {
    runs.push(article.slug);
    return { publishedUrl: `https://blog.example.com/${article.slug}` };
  },
};
let endpoint: (RunningServer & { webhookUrl: string }) | undefined;
const start = async (h: Parameters<typeof expressEndpoint>[1] = handlers) => {
  runs = [];
  // A handler that throws here does so on purpose: its error is expected, so it is not logged.
  endpoint = await expressEndpoint(token, h, { onError: () => {} });
  return endpoint.webhookUrl;
};
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('webhook-cms-receiver send', () => {
  it('delivers an article.sync with the token from --token-env, prints the attempt and the published_url, and exits 0', async () => {
    const url = await start();
    const run = await runCli(['send', '--url', url, '--token-env', 'MY_WEBHOOK_SECRET', '--event', 'article.sync'], {
      env: { MY_WEBHOOK_SECRET: token },
      secret: token,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`POST ${url}`);
    expect(run.stdout).toContain('Authorization: Bearer ***');
    expect(run.stdout).toMatch(
      /attempt 1: 200 in \d+ ms {2}\{"ok":true,"published_url":"https:\/\/blog\.example\.com\/ten-seo-tips"\}/,
    );
    expect(run.stdout).toContain('delivered, published_url https://blog.example.com/ten-seo-tips');
    expect(runs).toEqual(['ten-seo-tips']);
  });

  it('takes the token from WEBHOOK_TOKEN and never prints it', async () => {
    const url = await start();
    const run = await runCli(['send', '--url', url, '--event', 'article.sync'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(0);
  });

  it('sends the same delivery id --repeat times: the endpoint runs it once and answers the rest as duplicates', async () => {
    const url = await start();
    const run = await runCli(
      ['send', '--url', url, '--event', 'article.sync', '--repeat', '3', '--delivery-id', 'cli-repeat-1'],
      {
        env: { WEBHOOK_TOKEN: token },
        secret: token,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('delivery cli-repeat-1');
    expect(run.stdout.match(/\(a duplicate: the endpoint had already handled this delivery id\)/g)).toHaveLength(2);
    expect(runs).toEqual(['ten-seo-tips']);
  });

  it('gets 403 with --tamper, is not retried, and exits 1', async () => {
    const url = await start();
    const run = await runCli(['send', '--url', url, '--event', 'article.sync', '--tamper'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/attempt 1: 403 in \d+ ms {2}\{"error":"Invalid signature"\}\n/);
    expect(run.stdout).not.toContain('attempt 2');
    expect(run.stdout).toContain(
      'refused with 403; the service never retries 401 or 403. As expected: the body was tampered with.',
    );
    expect(runs).toEqual([]);
  });

  it('gets 401 with --wrong-token and 403 Request expired with --stale 600', async () => {
    const url = await start();
    const wrong = await runCli(['send', '--url', url, '--event', 'test', '--wrong-token'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect([wrong.code, wrong.stdout]).toEqual([1, expect.stringContaining('{"error":"Invalid token"}')]);
    const stale = await runCli(['send', '--url', url, '--event', 'test', '--stale', '600'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect([stale.code, stale.stdout]).toEqual([1, expect.stringContaining('{"error":"Request expired"}')]);
  });

  it('prints each attempt as it happens: the failed first one while the retry is still 2 s away', async () => {
    let calls = 0;
    const url = await start({
      'article.sync': () => {
        if (++calls === 1) throw new Error('database down');
      },
    });
    const child = spawnCli(['send', '--url', url, '--event', 'article.sync'], { WEBHOOK_TOKEN: token });
    const done = finished(child);
    let early = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        early += chunk.toString();
        if (early.includes('attempt 1:')) resolve();
      });
    });
    expect(child.exitCode).toBeNull();
    expect(early).toMatch(/attempt 1: 500 in \d+ ms {2}\{"error":"Handler failed"\} {2}\(retrying in 2 s\)/);
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/attempt 2: 200 in \d+ ms/);
  });

  it('delivers an article from --file inside the sample envelope, and a whole envelope from --file byte for byte', async () => {
    const url = await start();
    const dir = mkdtempSync(join(tmpdir(), 'wcr-cli-'));
    writeFileSync(join(dir, 'article.json'), JSON.stringify({ slug: 'from-a-file', title: 'From a file' }));
    const article = await runCli(
      ['send', '--url', url, '--event', 'article.sync', '--file', join(dir, 'article.json')],
      { env: { WEBHOOK_TOKEN: token } },
    );
    expect(article.stdout).toContain('published_url https://blog.example.com/from-a-file');
    const envelope = { event: 'test', timestamp: 1_700_000_000, article: null, profile: null };
    writeFileSync(join(dir, 'envelope.json'), `${JSON.stringify(envelope, null, 2)}\n`);
    const whole = await runCli(['send', '--url', url, '--file', join(dir, 'envelope.json')], {
      env: { WEBHOOK_TOKEN: token },
    });
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('event test');
  });

  it('says nothing is listening at an unreachable URL, and exits 1', async () => {
    const url = await deadUrl();
    const run = await runCli(['send', '--url', url, '--event', 'test', '--no-retry'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`nothing is listening at ${url}; is your server running?`);
    expect(run.stdout).toContain('gave up after 1 attempt(s)');
  });

  it('hints at the path for a 404 instead of printing the HTML page', async () => {
    const url = await start();
    const wrong = url.replace(/\/webhook$/, '/webhooks');
    const run = await runCli(['send', '--url', wrong, '--event', 'test', '--no-retry'], {
      env: { WEBHOOK_TOKEN: token },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(
        `attempt 1: 404 in \\d+ ms {2}\\(an HTML page, \\d+ characters\\): is the path right\\? tried POST ${wrong}\n`,
      ),
    );
    expect(run.stdout).not.toContain('<html');
    const json = await runCli(['send', '--url', wrong, '--event', 'test', '--no-retry', '--json'], {
      env: { WEBHOOK_TOKEN: token },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      hint: `is the path right? tried POST ${wrong}`,
      outcome: 'gave-up',
    });
  });

  it('prints one JSON line per delivery with --json, with the summary deliver() returns', async () => {
    const url = await start();
    const run = await runCli(['send', '--url', url, '--event', 'article.sync', '--repeat', '2', '--json'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const publishedUrl = 'https://blog.example.com/ten-seo-tips';
    expect(lines.map((line) => line.summary)).toEqual([
      { ok: true, duplicate: false, status: 200, publishedUrl },
      { ok: true, duplicate: true, status: 200, publishedUrl },
    ]);
    expect(lines[0]).toMatchObject({
      url,
      event: 'article.sync',
      copy: 1,
      outcome: 'delivered',
      attempts: [{ status: 200 }],
    });
    expect(lines[1].deliveryId).toBe(lines[0].deliveryId);
    expect(runs).toEqual(['ten-seo-tips']);
  });

  it('prints its help with --help and exits 0', async () => {
    const run = await runCli(['send', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: webhook-cms-receiver send --url URL --event EVENT [options]');
    expect(run.stdout).toContain('--tamper');
  });
});
