import { expectedRefusal } from '../testing/quiet.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { articleSyncPayload, createInspector, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { listen } from '../helpers/listen.js';
import { runCli } from './run-cli.js';

const token = 'cli-diagnose-inputs-token-9a2f';
const env = { WEBHOOK_TOKEN: token };
const dir = mkdtempSync(join(tmpdir(), 'wcr-diagnose-inputs-'));
const file = (name: string, content: string | Uint8Array) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

/**
 * What `curl -v --data-binary @body.json … > out.txt 2>&1` saves, byte for byte in shape:
 * curl's note, its progress meter, "* " notes, "> " request and "< " answer lines, the
 * "[n bytes data]" markers and the answer's body.
 */
function rawCurlVerbose(headers: Record<string, string>, bodyLength: number): string {
  return [
    'Note: Unnecessary use of -X or --request, POST is already inferred.',
    '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current',
    '                                 Dload  Upload   Total   Spent    Left  Speed',
    '  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0*   Trying 127.0.0.1:3000...',
    '* Connected to 127.0.0.1 (127.0.0.1) port 3000 (#0)',
    '> POST /webhook HTTP/1.1',
    '> Host: 127.0.0.1:3000',
    '> User-Agent: curl/7.88.1',
    '> Accept: */*',
    ...Object.entries(headers).map(([name, value]) => `> ${name}: ${value}`),
    `> Content-Length: ${bodyLength}`,
    '> ',
    `} [${bodyLength} bytes data]`,
    '< HTTP/1.1 403 Forbidden',
    '< content-type: application/json',
    '< Date: Mon, 23 Nov 2026 15:20:25 GMT',
    '< ',
    '{ [36 bytes data]',
    `100   ${bodyLength + 36}    0    36  100   ${bodyLength}   2148   1460 --:--:-- --:--:-- --:--:--  3818`,
    '* Connection #0 to host 127.0.0.1 left intact',
    '{"error":"Invalid signature"}',
  ].join('\n');
}

describe('webhook-cms-receiver diagnose: inputs as people have them', () => {
  it('reads raw `curl -v` output, progress meter and all', async () => {
    const { headers, body } = signDelivery({ token, payload: articleSyncPayload() });
    const bytes = `${String(body)}\n`;
    const run = await runCli(
      [
        'diagnose',
        '--headers',
        file('curl.txt', rawCurlVerbose(headers, bytes.length)),
        '--body',
        file('curl-body.json', bytes),
      ],
      { env, secret: token },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^verdict: 403 Invalid signature/);
    expect(run.stdout).toMatch(/final newline|trailing newline/i);
  });

  it('reports the recorded reason of an inspector record of a 401, not "cannot tell: no body"', async () => {
    const inspectorFile = join(dir, 'inspector', 'deliveries.jsonl');
    const app = express();
    const receiver = createReceiver({
      token,
      inspect: createInspector({ file: inspectorFile, token }),
      onRejected: expectedRefusal,
    });
    app.post('/webhook', webhookHandler(receiver, {}));
    const server = await listen(createServer(app));
    try {
      const wrong = signDelivery({ token: 'a-token-from-another-profile', payload: testPayload() });
      const answer = await fetch(`${server.url}/webhook`, { method: 'POST', headers: wrong.headers, body: wrong.body });
      expect(answer.status).toBe(401);
    } finally {
      await server.close();
    }
    await expect.poll(() => readFileSync(inspectorFile, 'utf8')).toContain('invalid_token');
    const recorded = JSON.parse(readFileSync(inspectorFile, 'utf8').trim()) as { error: { reason: string } };
    const run = await runCli(['diagnose', '--capture', inspectorFile], { env, secret: token });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('cannot tell');
    expect(run.stdout).toMatch(/^verdict: 401 Invalid token \(invalid_token\), as recorded/);
    expect(run.stdout).toContain(recorded.error.reason);
    expect(run.stdout).toMatch(/fix:\n.*token/);
    const json = await runCli(['diagnose', '--capture', inspectorFile, '--json'], { env, secret: token });
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      verdict: { status: 401, code: 'invalid_token', reason: recorded.error.reason },
      cause: { kind: 'token-mismatch' },
    });
  });

  it('explains a body nested 100,000 levels deep instead of crashing', async () => {
    const deep = `{"event":"test","nested":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { headers } = signDelivery({ token, payload: deep });
    // Sent with a leading space: the signature fails, so every re-serialization is tried on the deep value.
    const run = await runCli(
      ['diagnose', '--headers', file('deep.json', JSON.stringify(headers)), '--body', file('deep.txt', ` ${deep}`)],
      { env, secret: token },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^verdict: 403 Invalid signature/);
  });

  it('judges a capture whose receivedAt no clock can show as of now, instead of crashing', async () => {
    const { headers, body } = signDelivery({ token, payload: testPayload() });
    const line = JSON.stringify({ receivedAt: 1e30, headers, body });
    const run = await runCli(['diagnose', '--capture', file('far.jsonl', line)], { env, secret: token });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^verdict: 200: accepted, judged at .* \(now\)/);
    expect(run.code).toBe(0);
  });

  it.each([
    ['1e20', /--now must be Unix seconds or an ISO 8601 date/],
    ['99999999999999999', /--now .* is out of range/],
    ['yesterday', /--now must be Unix seconds or an ISO 8601 date/],
    ['', /--now must be Unix seconds or an ISO 8601 date/],
  ])('exits 2 (a usage error, not 1 "refused") for --now %j', async (value, message) => {
    const { headers, body } = signDelivery({ token, payload: testPayload() });
    const run = await runCli(
      [
        'diagnose',
        '--headers',
        file('now.json', JSON.stringify(headers)),
        '--body',
        file('now.txt', body),
        '--now',
        value,
      ],
      { env, secret: token },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('unexpected error');
  });
});
