import { afterEach, describe, expect, it } from 'vitest';
import { nodeTarget, type ProbeTarget, sloppyTarget } from '../testing/probe-endpoints.js';
import { expressEndpoint } from './endpoint.js';
import { runCli } from './run-cli.js';

const token = 'cli-probe-token-0b7e';
const env = { WEBHOOK_TOKEN: token };
let endpoint: ProbeTarget | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('webhook-cms-receiver probe', () => {
  it("prints a table for a correct endpoint and exits 0, with no warning for the README's app.post route", async () => {
    endpoint = await expressEndpoint(token, {});
    const run = await runCli(['probe', endpoint.webhookUrl], { env, secret: token });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `Probing ${endpoint.webhookUrl} against the contract (read-only: only test events and refusals)`,
    );
    // No stale version number: the probe checks the contract's delivery rules, whichever version.
    expect(run.stdout).not.toMatch(/contract v\d/);
    expect(run.stdout).toMatch(/\n {2}result check {17}reason\n/);
    expect(run.stdout).toMatch(/\n {2}pass {3}test event {12}200 \{"ok":true\} in \d+ ms\n/);
    expect(run.stdout).toMatch(/\n {2}pass {3}GET {19}404 /);
    expect(run.stdout).toMatch(/\nok: 10 pass, 0 warn, 0 fail\n$/);
  });

  it('names the failed row and exits 1 for an endpoint that accepts any signature', async () => {
    endpoint = await sloppyTarget(token, { signature: true });
    const run = await runCli(['probe', endpoint.webhookUrl], { env, secret: token });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\n {2}FAIL {3}bad signature {9}200 \{"ok":true\} in \d+ ms: accepted a signature made over other bytes/,
    );
    expect(run.stdout).toContain('failed: 9 pass, 0 warn, 1 fail (bad signature)');
  });

  it('adds the writes with --writes, and prints one JSON document with --json', async () => {
    endpoint = await nodeTarget({ token }, {});
    const run = await runCli(['probe', endpoint.webhookUrl, '--writes', '--json', '--token-env', 'PROBE_TOKEN'], {
      env: { PROBE_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { ok: boolean; writes: boolean; rows: { name: string; result: string }[] };
    expect(result).toMatchObject({ ok: true, writes: true, url: endpoint.webhookUrl });
    expect(result.rows.map((row) => row.name)).toContain('concurrent copies');
    expect(result.rows.every((row) => row.result === 'pass')).toBe(true);
  });

  it("names a tenant-mode site's profile with --profile-id and --profile-domain, which go together", async () => {
    const site = { id: 'site-cli', token, profileId: 'prof-cli', domain: 'cli.example.com' };
    endpoint = await nodeTarget({ tenants: () => site }, {});
    const args = ['probe', endpoint.webhookUrl, '--writes', '--profile-id', 'prof-cli'];
    const run = await runCli([...args, '--profile-domain', 'cli.example.com'], { env, secret: token });
    expect(run.stdout).toMatch(/\nok: 14 pass, 0 warn, 0 fail\n$/);
    const half = await runCli(args, { env, secret: token });
    expect([half.code, half.stderr]).toEqual([
      2,
      expect.stringContaining('--profile-id and --profile-domain go together'),
    ]);
  });

  it('needs exactly one URL', async () => {
    const none = await runCli(['probe'], { env, secret: token });
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('missing URL: webhook-cms-receiver probe')]);
    const help = await runCli(['probe', '--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('Usage: webhook-cms-receiver probe URL')]);
  });
});
