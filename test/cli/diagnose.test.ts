import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { articleSyncPayload, captureLine, signDelivery } from 'webhook-cms-receiver/testing';
import { runCli } from './run-cli.js';

const token = 'cli-diagnose-token-4e0a71';
const env = { WEBHOOK_TOKEN: token };
const dir = mkdtempSync(join(tmpdir(), 'wcr-diagnose-'));
const file = (name: string, content: string | Uint8Array) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
const now = () => Math.floor(Date.now() / 1000);

/** Headers as `curl -v` prints them: the request line and "> " before what was sent, "< " before what came back. */
function curlVerbose(headers: Record<string, string>): string {
  const sent = Object.entries(headers).map(([name, value]) => `> ${name}: ${value}`);
  return [
    '* Connected to 127.0.0.1',
    '> POST /webhook HTTP/1.1',
    '> Host: 127.0.0.1:3000',
    ...sent,
    '>',
    '< HTTP/1.1 403 Forbidden',
    '< Content-Type: application/json',
  ].join('\n');
}

describe('webhook-cms-receiver diagnose', () => {
  it('reads --headers (curl -v style) and --body, names a trailing newline, exits 1 and never prints the token', async () => {
    const { headers, body } = signDelivery({ token, payload: articleSyncPayload() });
    const run = await runCli(
      [
        'diagnose',
        '--headers',
        file('headers.txt', curlVerbose(headers)),
        '--body',
        file('body.json', `${String(body)}\n`),
      ],
      { env, secret: token },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^verdict: 403 Invalid signature \(invalid_signature\), judged at \S+ \(now\)\n/);
    expect(run.stdout).toMatch(/\n {2}pass {2}token {13}Bearer the configured token\n/);
    expect(run.stdout).toMatch(
      /\n {2}FAIL {2}signature {9}made with your token over other bytes: trailing-newline-added\n/,
    );
    expect(run.stdout).toContain(
      'likely cause (body-transformed: trailing-newline-added):\n  A newline was added at the end',
    );
    expect(run.stdout).toContain("fix:\n  Use the exact bytes: printf '%s' rather than echo");
    expect(run.stdout).not.toContain(headers['X-Service-Signature']!.slice(7));
  });

  it('judges a capture line as of its receivedAt: a 400 s clock offset, and --json', async () => {
    const receivedAt = Date.now() - 3_600_000;
    const signed = signDelivery({
      token,
      payload: articleSyncPayload(),
      timestamp: Math.floor(receivedAt / 1000) - 400,
    });
    const line = captureLine({
      headers: signed.headers,
      body: new TextEncoder().encode(String(signed.body)),
      receivedAt,
    });
    const capture = file('capture.jsonl', `${captureLine({ headers: {}, body: new Uint8Array([1]) })}\n${line}\n`);
    const text = await runCli(['diagnose', '--capture', capture], { env, secret: token });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`judged at ${new Date(receivedAt).toISOString()} (the capture's receivedAt)`);
    expect(text.stdout).toContain(
      "likely cause (clock-offset):\n  X-Service-Timestamp is 400 s behind this machine's clock",
    );
    const json = await runCli(['diagnose', '--capture', capture, '--line', '2', '--json'], { env, secret: token });
    const diagnosis = JSON.parse(json.stdout) as { ok: boolean; cause: { kind: string; offsetSeconds: number } };
    expect(diagnosis).toMatchObject({ ok: false, verdict: { status: 403, code: 'request_expired' } });
    expect(diagnosis.cause).toMatchObject({ kind: 'clock-offset', offsetSeconds: 400 });
    const first = await runCli(['diagnose', '--capture', capture, '--line', '1'], { env, secret: token });
    expect(first.stdout).toContain('likely cause (token-missing)');
  });

  it('reads what sign --json wrote (token masked) and finds it accepted, with --now and another variable', async () => {
    const signed = await runCli(['sign', '--event', 'article.sync', '--json', '--token-env', 'BLOG_TOKEN'], {
      env: { BLOG_TOKEN: token },
      secret: token,
    });
    const capture = JSON.parse(signed.stdout) as { headers: Record<string, string>; body: string; curl: string };
    expect(capture.headers.Authorization).toBe('Bearer ***');
    expect(capture.curl).toContain('Bearer $BLOG_TOKEN');
    const path = file('signed.json', signed.stdout);
    const timestamp = capture.headers['X-Service-Timestamp']!;
    const run = await runCli(['diagnose', '--capture', path, '--token-env', 'BLOG_TOKEN', '--now', timestamp], {
      env: { BLOG_TOKEN: token },
      secret: token,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^verdict: 200: accepted, judged at \S+ \(--now\)/);
    expect(run.stdout).toMatch(/\n {2}skip {2}token {13}the capture redacts the Bearer token/);
    const iso = new Date((Number(timestamp) + 3600) * 1000).toISOString();
    const late = await runCli(['diagnose', '--capture', path, '--now', iso], { env, secret: token });
    expect([late.code, late.stdout]).toEqual([1, expect.stringContaining('about 1 h: a clock set to local time')]);
  });

  it('names an inspector capture whose body a JSON parser re-serialized', async () => {
    const signed = signDelivery({ token, payload: articleSyncPayload(), timestamp: now() });
    const headers = { ...signed.headers, Authorization: 'Bearer [redacted]' };
    const body = new TextEncoder().encode(JSON.stringify(JSON.parse(String(signed.body)), null, 2));
    const path = file('inspector.jsonl', `${captureLine({ headers, body })}\n`);
    const run = await runCli(['diagnose', '--capture', path, '--json'], { env, secret: token });
    expect(JSON.parse(run.stdout).cause).toMatchObject({
      kind: 'body-transformed',
      transformation: 'json-pretty-printed',
    });
  });

  it("reads the inspector's ISO receivedAt, and skips the body checks of a truncated body", async () => {
    const receivedAt = new Date(Date.now() - 86_400_000).toISOString();
    const signed = signDelivery({
      token,
      payload: articleSyncPayload(),
      timestamp: Math.floor(Date.parse(receivedAt) / 1000),
    });
    const record = {
      receivedAt,
      headers: signed.headers,
      body: String(signed.body).slice(0, 100),
      bodyTruncated: true,
    };
    const run = await runCli(['diagnose', '--capture', file('cut.jsonl', JSON.stringify(record))], {
      env,
      secret: token,
    });
    expect(run.stdout).toContain(`judged at ${receivedAt} (the capture's receivedAt)`);
    expect(run.stdout).toMatch(/^verdict: cannot tell: the capture holds no body/);
    expect(run.stdout).toMatch(/\n {2}skip {2}signature {9}not checked: the capture holds no body\n/);
    expect(run.stdout).toContain('The capture kept only the start of the body, so the body checks were skipped.');
  });

  it('explains usage mistakes with exit 2', async () => {
    const none = await runCli(['diagnose'], { env, secret: token });
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('missing request: give --capture FILE')]);
    const noBody = await runCli(['diagnose', '--headers', file('h.txt', 'Content-Type: application/json')], { env });
    expect(noBody.stderr).toContain('missing --body FILE');
    const broken = await runCli(['diagnose', '--capture', file('broken.jsonl', '{"headers": 1}\n')], { env });
    expect(broken.stderr).toContain('line 1 of --capture');
    const secretLine = await runCli(
      ['diagnose', '--headers', file('bad.txt', `Bearer ${token}`), '--body', file('b', '{}')],
      {
        env,
        secret: token,
      },
    );
    expect(secretLine.stderr).toContain('--headers: line 1 is not a "Name: value" line.');
  });
});
