import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../cli/run-cli.js';

const token = 'whk_inspect_cli_secret_token_42';

describe('webhook-cms-receiver inspect', () => {
  it('serves on 127.0.0.1 with a per-run secret in the URL it prints, and never prints the token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcr-inspect-cli-'));
    const child = spawnCli(
      ['inspect', '--file', join(dir, 'd.jsonl'), '--target', 'http://127.0.0.1:9/webhook', '--json'],
      {
        WEBHOOK_TOKEN: token,
      },
    );
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.once('exit', (code) => reject(new Error(`inspect exited with ${code}: ${output}`)));
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{20,}\/$/);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(token);
      expect((await fetch(new URL('/', url))).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(output).not.toContain(token);
  });

  it('refuses a non-loopback address unless told explicitly', async () => {
    const run = await runCli(['inspect', '--host', '0.0.0.0'], { env: { WEBHOOK_TOKEN: token }, secret: token });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/refusing to serve the inspector on 0\.0\.0\.0.*--allow-remote/);
  });
});
