import { expectedRefusal } from '../testing/quiet.js';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { createInspector, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import type { RunningServer } from '../helpers/listen.js';
import { type CountingServer, countingServer } from '../testing/hostile-servers.js';
import { type RunningInspect, startInspect } from './start-inspect.js';

const token = 'inspector-safety-token-6b0e';
const env = { WEBHOOK_TOKEN: token };
const running: (RunningInspect | RunningServer)[] = [];
afterEach(async () => {
  for (const thing of running.splice(0)) 'stop' in thing ? thing.stop() : await thing.close();
});

/** Records `deliveries` through a receiver with the inspector on, as a development server would. */
async function recorded(...deliveries: { headers: Record<string, string>; body: string | Uint8Array }[]) {
  const dir = mkdtempSync(join(tmpdir(), 'wcr-inspector-safety-'));
  const file = join(dir, 'records', 'deliveries.jsonl');
  const receiver = createReceiver({ token, inspect: createInspector({ file, token }), onRejected: expectedRefusal });
  for (const delivery of deliveries) await receiver.handle(delivery, {});
  await expect.poll(() => readFileSync(file, 'utf8').split('\n').filter(Boolean).length).toBe(deliveries.length);
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; status: number });
  return { dir, file, records };
}

async function inspectFor(file: string, target: string): Promise<RunningInspect> {
  const inspect = await startInspect(['--file', file, '--target', target], env);
  running.push(inspect);
  return inspect;
}

async function targetServer(): Promise<CountingServer & { webhookUrl: string }> {
  const server = await countingServer();
  running.push(server);
  return Object.assign(server, { webhookUrl: `${server.url}/webhook` });
}

const post = (inspect: RunningInspect, route: string, body: object, headers: Record<string, string>) =>
  fetch(new URL(route, inspect.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const sameOrigin = (inspect: RunningInspect) => ({
  origin: new URL(inspect.url).origin,
  'sec-fetch-site': 'same-origin',
});

describe('the inspector keeps what it records to the developer', () => {
  it('writes its records 0600 inside a 0700 folder', async () => {
    if (process.platform === 'win32') return;
    const { file } = await recorded(signDelivery({ token, payload: testPayload() }));
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(join(file, '..')).mode & 0o777).toString(8)).toBe('700');
  });

  it('never replays a delivery that came with a wrong token: it would sign an unauthenticated body', async () => {
    const wrong = signDelivery({ token: 'whk_not_the_endpoints_token', payload: testPayload() });
    const good = signDelivery({ token, payload: testPayload() });
    const { file, records } = await recorded(wrong, good);
    // A refusal is written once its diagnosis is in, so the file's order is not the order sent.
    const refusedId = records.find((record) => record.status === 401)!.id;
    const acceptedId = records.find((record) => record.status === 200)!.id;
    const target = await targetServer();
    const inspect = await inspectFor(file, target.webhookUrl);
    const refused = await post(inspect, 'replay', { id: refusedId, newDeliveryId: true }, sameOrigin(inspect));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /refused for its token \(invalid_token\).*not replayed/,
    );
    expect(target.requests).toBe(0);
    const replayed = await post(inspect, 'replay', { id: acceptedId, newDeliveryId: true }, sameOrigin(inspect));
    expect(replayed.status).toBe(200);
    expect(target.requests).toBe(1);
  });

  it('refuses a POST from another site (Origin, Sec-Fetch-Site, or neither) with 403', async () => {
    const { file } = await recorded(signDelivery({ token, payload: testPayload() }));
    const target = await targetServer();
    const inspect = await inspectFor(file, target.webhookUrl);
    const crossSite: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: new URL(inspect.url).origin.replace('127.0.0.1', 'localhost') },
      {},
    ];
    for (const headers of crossSite) {
      for (const route of ['send', 'replay']) {
        const answer = await post(inspect, route, { event: 'test', id: 'x' }, headers);
        expect([route, headers, answer.status]).toEqual([route, headers, 403]);
      }
    }
    expect(target.requests).toBe(0);
    expect((await post(inspect, 'send', { event: 'test' }, sameOrigin(inspect))).status).toBe(200);
    expect(target.requests).toBe(1);
  });

  it("injects the page's config as data: a --target with $' and </script> stays a string", async () => {
    const { file } = await recorded(signDelivery({ token, payload: testPayload() }));
    const target = `http://127.0.0.1:9/webhook?a=$'&b=$&&c=</script><script>alert(1)</script>`;
    const inspect = await inspectFor(file, target);
    const html = await (await fetch(inspect.url)).text();
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const line = html.split('\n').find((l) => l.startsWith('const config = '))!;
    const config = JSON.parse(line.slice('const config = '.length, -1)) as { target: string; canSend: boolean };
    expect(config).toMatchObject({ target, canSend: true });
  });

  it('says how to start recording on its empty page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wcr-inspector-empty-'));
    const inspect = await startInspect([], env, dir);
    running.push(inspect);
    const html = await (await fetch(inspect.url)).text();
    const empty = html.slice(html.indexOf('<p class="empty" id="empty">'));
    expect(empty.slice(0, empty.indexOf('</p>'))).toMatch(/createInspector.*inspect:.*working directory/s);
    expect(html).toContain(join(dir, '.webhook-inspector', 'deliveries.jsonl'));
  });
});
