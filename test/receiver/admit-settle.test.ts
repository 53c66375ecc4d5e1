import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

// An adapter written on `receiver.admit()` as its TSDoc shows. With a token source the head
// cannot decide the token (the source is still being read), so it admits pending; the example
// read the body straight away, and an unknown token's body was read whole before the 401. The
// example now waits with `admission.settle()`. Bytes counted on the server's sockets.

const MiB = 1024 * 1024;
const KNOWN = 'whk_settle_known_token_0123456789';
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A hand-written adapter; `settle` says whether it follows the documented example. */
async function customAdapter(receiver: Receiver, { settle }: { settle: boolean }) {
  const read: number[] = [];
  const server = createServer(async (req, res) => {
    // As the TSDoc example of Receiver.admit:
    let admission = receiver.admit({ method: req.method, headers: req.headers });
    if (settle && admission.admitted) admission = (await admission.settle?.()) ?? admission;
    const answer = admission.admitted ? await admission.handle(await readBody(req), {}) : admission.answer;
    res.writeHead(answer.status, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(answer.body));
  });
  server.on('connection', (socket: Socket) => socket.once('close', () => read.push(socket.bytesRead)));
  const running = await listen(server);
  servers.push(running);
  return { ...running, read };
}

/** An unknown token's 8 MiB delivery; resolves to the status, or 0 when the server cut it off. */
async function postLarge(url: string) {
  const { headers } = signDelivery({ token: `unknown-${randomUUID()}`, payload: articleSyncPayload() });
  const body = Buffer.alloc(8 * MiB, 0x20);
  try {
    return (await fetch(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, body }))
      .status;
  } catch {
    return 0;
  }
}

const closed = async (read: number[]) => {
  const deadline = Date.now() + 10_000;
  while (read.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return read[0]!;
};

describe('receiver.admit() with a token the head cannot decide', () => {
  // A token source that answers a moment later, as one reading a secret manager does.
  const source = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return [KNOWN];
  };

  it('reads no body of an unknown token when the adapter settles first, as documented', async () => {
    const server = await customAdapter(createReceiver({ token: source, logger: false }), { settle: true });
    expect([0, 401]).toContain(await postLarge(server.url));
    expect(await closed(server.read)).toBeLessThan(MiB);
  }, 20_000);

  it('reads it whole when the adapter does not (what the example did before)', async () => {
    const server = await customAdapter(createReceiver({ token: source, logger: false }), { settle: false });
    expect(await postLarge(server.url)).toBe(401);
    expect(await closed(server.read)).toBeGreaterThan(8 * MiB);
  }, 20_000);

  it('refuses with 503, no body read, when the token source hangs (tokenReadTimeoutMs)', async () => {
    const hung = () => new Promise<string[]>(() => {});
    const receiver = createReceiver({ token: hung, tokenReadTimeoutMs: 200, logger: false, onError: () => {} });
    const server = await customAdapter(receiver, { settle: true });
    expect([0, 503]).toContain(await postLarge(server.url));
    expect(await closed(server.read)).toBeLessThan(MiB);
  }, 20_000);

  it('settles once: a second call has nothing to wait for', async () => {
    const receiver = createReceiver({ token: source, logger: false });
    const delivery = signDelivery({ token: KNOWN, payload: articleSyncPayload() });
    const admission = receiver.admit({ method: 'POST', headers: delivery.headers });
    if (!admission.admitted) throw new Error('a pending token is admitted on its head');
    expect(await admission.settle?.()).toBe(admission);
    expect(admission.settle?.()).toBeUndefined();
  });

  it('admits a known token after settling, and handles its delivery', async () => {
    const server = await customAdapter(createReceiver({ token: source, logger: false }), { settle: true });
    const delivery = signDelivery({ token: KNOWN, payload: articleSyncPayload() });
    const response = await fetch(server.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(response.status).toBe(200);
  });
});
