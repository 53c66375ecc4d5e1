import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { articleSyncPayload } from 'webhook-cms-receiver/testing';
import { nodeTarget, type ProbeTarget } from '../testing/probe-endpoints.js';
import { runCli } from './run-cli.js';

const token = 'cli-send-profile-token-41c8';
const env = { WEBHOOK_TOKEN: token };
const site = { id: 'site-send', token, profileId: 'prof-send', domain: 'send.example.com' };
let endpoint: ProbeTarget | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('webhook-cms-receiver send --profile-id ID --profile-domain D', () => {
  it("names a tenant-mode site's profile, as probe does, so the site accepts the article", async () => {
    const synced: string[] = [];
    endpoint = await nodeTarget(
      { tenants: () => site },
      { 'article.sync': (event) => void synced.push(event.profile.id) },
    );
    const send = ['send', '--url', endpoint.webhookUrl, '--event', 'article.sync', '--no-retry'];
    const other = await runCli(send, { env, secret: token });
    expect([other.code, other.stdout]).toEqual([1, expect.stringContaining('"error":"Profile mismatch"')]);
    const named = await runCli([...send, '--profile-id', 'prof-send', '--profile-domain', 'send.example.com'], {
      env,
      secret: token,
    });
    expect([named.code, named.stdout]).toEqual([0, expect.stringContaining('\ndelivered\n')]);
    expect(synced).toEqual(['prof-send']);
  });

  it('takes the two together, and not with a whole envelope, which names its own profile', async () => {
    const url = 'http://127.0.0.1:9/webhook';
    const half = await runCli(['send', '--url', url, '--event', 'test', '--profile-id', 'p'], { env, secret: token });
    expect([half.code, half.stderr]).toEqual([
      2,
      expect.stringContaining('--profile-id and --profile-domain go together'),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'wcr-send-profile-')), 'envelope.json');
    writeFileSync(file, JSON.stringify(articleSyncPayload()));
    const whole = await runCli(
      ['send', '--url', url, '--file', file, '--profile-id', 'p', '--profile-domain', 'p.example.com'],
      { env, secret: token },
    );
    expect([whole.code, whole.stderr]).toEqual([2, expect.stringContaining('names its own profile')]);
  });

  it('lists the flags in its help', async () => {
    const run = await runCli(['send', '--help']);
    expect(run.stdout).toContain('--profile-id ID');
    expect(run.stdout).toContain('--profile-domain D');
  });
});
