import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/listen.js';
import { expressEndpoint } from './endpoint.js';
import { runCli } from './run-cli.js';

const token = 'cli-sign-token-e41d';
let endpoint: (RunningServer & { webhookUrl: string }) | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** The curl command `sign` printed: its last lines, from `curl` on. */
const curlOf = (stdout: string) => stdout.slice(stdout.indexOf('curl '));
const bash = (script: string, cwd: string) =>
  promisify(execFile)('bash', ['-c', script], { cwd, env: { ...process.env, WEBHOOK_TOKEN: token } });

describe('webhook-cms-receiver sign', () => {
  it('prints the signed headers with the token masked, and a curl command that the endpoint accepts', async () => {
    endpoint = await expressEndpoint(token, {
      'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
    });
    const run = await runCli(['sign', '--event', 'article.sync', '--url', endpoint.webhookUrl], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Authorization: Bearer \*\*\*\nContent-Type: application\/json\nX-Service-Timestamp: \d+\nX-Service-Signature: sha256=[0-9a-f]{64}\nX-Service-Event: article.sync\nX-Service-Delivery-Id: [0-9a-f-]{36}\n/,
    );
    expect(curlOf(run.stdout)).toContain('"Authorization: Bearer $WEBHOOK_TOKEN"');
    const { stdout } = await bash(curlOf(run.stdout), tmpdir());
    expect(JSON.parse(stdout)).toEqual({ ok: true, published_url: 'https://blog.example.com/ten-seo-tips' });
  });

  it('signs the exact bytes of --file, so curl --data-binary @file is accepted', async () => {
    endpoint = await expressEndpoint(token, {});
    const dir = mkdtempSync(join(tmpdir(), 'wcr-sign-'));
    // Whitespace and key order are part of what is signed.
    writeFileSync(
      join(dir, 'body.json'),
      '{ "profile": null, "event": "test",\n  "timestamp": 1700000000, "article": null }\n',
    );
    const run = await runCli(
      ['sign', '--file', 'body.json', '--url', endpoint.webhookUrl, '--delivery-id', 'sign-file-1'],
      {
        env: { WEBHOOK_TOKEN: token },
        secret: token,
        cwd: dir,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('X-Service-Event: test');
    expect(curlOf(run.stdout)).toContain("--data-binary @'body.json'");
    const { stdout } = await bash(curlOf(run.stdout), dir);
    expect(JSON.parse(stdout)).toEqual({ ok: true });
  });

  it('uses --timestamp as given and warns when it is outside the 300 s window', async () => {
    const run = await runCli(['sign', '--event', 'test', '--timestamp', '1700000000'], {
      env: { WEBHOOK_TOKEN: token },
      secret: token,
    });
    expect(run.stdout).toContain('X-Service-Timestamp: 1700000000\n');
    expect(run.stdout).toContain('the endpoint will answer 403 Request expired');
  });

  it('needs exactly one of --file and --event', async () => {
    const run = await runCli(['sign'], { env: { WEBHOOK_TOKEN: token }, secret: token });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('give exactly one of --file BODY');
  });

  it('prints its help with --help and exits 0', async () => {
    const run = await runCli(['sign', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: webhook-cms-receiver sign (--file BODY | --event EVENT) [options]');
  });
});
