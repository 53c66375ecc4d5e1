import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const token = 'cli-help-token-2d6b';
const env = { WEBHOOK_TOKEN: token };

describe('webhook-cms-receiver help and usage messages', () => {
  it.each([['--help'], ['-h']])('inspect %s prints its usage and exits 0', async (flag) => {
    const run = await runCli(['inspect', flag], { env, secret: token });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: webhook-cms-receiver inspect /);
    for (const option of ['--file', '--target', '--host', '--port', '--allow-remote', '--token-env'])
      expect(run.stdout).toContain(option);
    expect(run.stdout).toContain('createInspector');
  });

  it('names every command in the top-level help, from its first line on', async () => {
    const run = await runCli(['--help']);
    const headline = run.stdout.split('\n')[0]!;
    for (const command of ['send', 'sign', 'probe', 'diagnose', 'inspect', 'replay', 'rotation'])
      expect(headline).toMatch(new RegExp(`\\b${command}\\b`));
    expect(run.stdout).toContain('webhook-cms-receiver inspect [--file FILE] [--target URL]');
  });

  it('reports every missing input of send at once', async () => {
    const run = await runCli(['send']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing token: set WEBHOOK_TOKEN');
    expect(run.stderr).toContain('missing --url');
    expect(run.stderr).toContain('missing --event');
    expect(run.stderr).toContain('webhook-cms-receiver send --help');
  });

  it.each([
    [['probe'], ['missing URL', 'missing token']],
    [['sign'], ['missing --file or --event', 'missing token']],
    [['diagnose'], ['missing request', 'missing token']],
  ])('reports every missing input of %j at once', async (args, messages) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    for (const message of messages) expect(run.stderr).toContain(message);
  });

  it('names the flag and the fix instead of the parser text', async () => {
    const unknown = await runCli(['send', '--colour'], { env, secret: token });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown option --colour for send; its options are --url');
    const noValue = await runCli(['send', '--event', 'test', '--url'], { env, secret: token });
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain('--url needs a value: --url URL');
    const valued = await runCli(['probe', 'http://127.0.0.1:9/webhook', '--json=yes'], { env, secret: token });
    expect(valued.code).toBe(2);
    expect(valued.stderr).toContain('--json takes no value: write --json alone');
    const stray = await runCli(['send', 'http://127.0.0.1:9/webhook'], { env, secret: token });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('send takes no bare argument ("http://127.0.0.1:9/webhook")');
    for (const run of [unknown, noValue, valued, stray]) {
      expect(run.stderr).not.toMatch(/Unknown option|argument missing|To specify a positional|Unexpected argument/);
    }
  });
});
