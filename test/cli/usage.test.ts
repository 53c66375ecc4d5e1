import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const token = 'cli-usage-token-77b1';
const env = { WEBHOOK_TOKEN: token };

describe('webhook-cms-receiver usage errors: exit 2 and a message naming the fix', () => {
  it('names WEBHOOK_TOKEN and --token-env when no token is given', async () => {
    const run = await runCli(['send', '--url', 'http://127.0.0.1:3000/webhook', '--event', 'test']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing token: set WEBHOOK_TOKEN (or name another variable with --token-env NAME)');
    expect(run.stderr).toContain('webhook-cms-receiver send --help');
    expect(run.stdout).toBe('');
    const named = await runCli(['probe', 'http://127.0.0.1:3000/webhook', '--token-env', 'STAGING_TOKEN'], { env });
    expect(named.stderr).toContain('the environment variable STAGING_TOKEN (from --token-env) is not set or empty');
  });

  it('refuses a token on the command line, on every command, without printing it', async () => {
    for (const command of ['send', 'sign', 'probe', 'diagnose']) {
      const run = await runCli([command, '--token', 'cli-argv-token-91d'], { secret: 'cli-argv-token-91d' });
      expect([command, run.code]).toEqual([command, 2]);
      expect(run.stderr).toContain('--token is not accepted: a token on the command line shows in the process list');
      expect(run.stderr).toContain('--token-env NAME');
    }
  });

  it('lists the known events for an unknown one', async () => {
    const run = await runCli(['send', '--url', 'http://127.0.0.1:3000/webhook', '--event', 'article.publish'], {
      env,
      secret: token,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown event "article.publish": use one of article.sync, article.trash, test.');
  });

  it('shows what a URL looks like for an invalid --url', async () => {
    const run = await runCli(['send', '--url', 'localhost:3000', '--event', 'test'], { env, secret: token });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid --url "localhost:3000": give the full address with http:// or https://');
  });

  it('names the file it cannot read', async () => {
    const run = await runCli(
      ['send', '--url', 'http://127.0.0.1:3000/webhook', '--event', 'article.sync', '--file', 'no/such/article.json'],
      { env, secret: token },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot read --file no/such/article.json (ENOENT): check the path');
  });

  it('rejects an unknown option and an unknown command', async () => {
    const option = await runCli(['send', '--colour'], { env, secret: token });
    expect([option.code, option.stderr]).toEqual([2, expect.stringContaining('unknown option --colour for send')]);
    const command = await runCli(['deliver'], { env, secret: token });
    expect([command.code, command.stderr]).toEqual([
      2,
      expect.stringContaining(
        'unknown command "deliver": use send, sign, probe, diagnose, inspect, replay, rotation, ledger, or --version.',
      ),
    ]);
  });

  it('prints the top-level help with --help (exit 0), and to stderr with no command (exit 2)', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('webhook-cms-receiver send --url URL --event EVENT');
    expect(help.stdout).toContain('webhook-cms-receiver probe URL [--writes]');
    expect(help.stdout).toContain('webhook-cms-receiver diagnose (--capture FILE | --headers FILE --body FILE)');
    expect(help.stdout).toContain('Exit codes: 0 delivered, accepted or every probe row passed;');
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('webhook-cms-receiver <command> --help');
  });
});
