import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore, type ReceiverOptions } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

// Issue 45, defect 3: while a rotation window was armed, every unknown token's body was read
// and base64-encoded even when it would not be kept (48 × 9 MiB grew a server by 532 MiB). A
// request that will not be kept is now refused on its head, and at most four bodies are read
// for keeping at once. Bytes counted on the server's sockets.

const MiB = 1024 * 1024;
const BODY_BYTES = 9 * MiB;
const OLD = 'unread-bodies-old-token-0123456789';

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server in a rotation window whose sockets report the bytes they read once closed. */
async function countingServer(options: Partial<ReceiverOptions>) {
  const dedup = memoryDedupStore();
  const receiver = createReceiver({
    token: [OLD],
    rotatingUntil: new Date(Date.now() + 3_600_000),
    dedup,
    logger: false,
    ...options,
  } as ReceiverOptions);
  const server = createServer(webhookHandler(receiver, { 'article.sync': () => {} }));
  const read: number[] = [];
  server.on('connection', (socket: Socket) => socket.once('close', () => read.push(socket.bytesRead)));
  const running = await listen(server);
  servers.push(running);
  /** The bytes read on each connection, once `count` have closed (the client closes on the answer). */
  const closed = async (count: number) => {
    const deadline = Date.now() + 10_000;
    while (read.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return read;
  };
  return { ...running, read, closed, dedup };
}

/**
 * Posts a signed head declaring `bytes` of body, writes the first 64 KiB, and the rest only
 * once `more` resolves (or never): the server's answer tells whether it waited for the body.
 */
function postLarge(url: string, token: string, bytes: number, more: Promise<void> = new Promise(() => {})) {
  const { hostname, port } = new URL(url);
  const { headers } = signDelivery({ token, payload: articleSyncPayload(), deliveryId: randomUUID() });
  const lines = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-length')
    .map(([name, value]) => `${name}: ${value}`);
  const head = ['POST / HTTP/1.1', `Host: ${hostname}:${port}`, ...lines, `Content-Length: ${bytes}`, '', ''];
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise<number | undefined>((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let sent = 0;
    const finish = () => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined);
    };
    const pump = () => {
      while (sent < bytes && !socket.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.byteLength, bytes - sent));
        sent += piece.byteLength;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (data) => {
      text += data.toString('latin1');
      if (/\r\n\r\n/.test(text)) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(head.join('\r\n'));
    socket.write(chunk);
    sent = chunk.byteLength;
    void more.then(pump);
  });
}

describe('a rotation window refuses on the head what it will not keep (issue 45, defect 3)', () => {
  it('reads none of 48 × 9 MiB bodies from a token whose share of the full store is taken', async () => {
    const server = await countingServer({ maxKeptRequests: 2 });
    const reused = 'unread-bodies-reused-junk-token';
    for (let i = 0; i < 2; i++) {
      const { headers, body } = signDelivery({ token: reused, payload: articleSyncPayload() });
      expect((await fetch(server.url, { method: 'POST', headers, body })).status).toBe(503);
    }
    expect(await server.dedup.kept!.list()).toHaveLength(2);
    const answers = await Promise.all(
      Array.from({ length: 48 }, () => postLarge(server.url, reused, BODY_BYTES, Promise.resolve())),
    );
    expect(answers).toEqual(Array(48).fill(503));
    const read = await server.closed(48);
    expect(read.length).toBeGreaterThanOrEqual(48);
    for (const bytes of read) expect(bytes).toBeLessThan(MiB);
  }, 30_000);

  it('reads none of a body declared larger than maxKeptBytes', async () => {
    const server = await countingServer({ maxKeptBytes: MiB });
    expect(await postLarge(server.url, `unknown-${randomUUID()}`, BODY_BYTES, Promise.resolve())).toBe(503);
    expect(await server.closed(1)).toHaveLength(1);
    expect(server.read[0]).toBeLessThan(MiB);
    expect(await server.dedup.kept!.list()).toEqual([]);
  }, 30_000);

  it('reads at most four bodies to keep at once: the others are answered 503 on their head', async () => {
    const server = await countingServer({});
    let release: () => void = () => {};
    const more = new Promise<void>((resolve) => (release = resolve));
    // 48 requests from random tokens (so each would win a place): four bodies stall half-sent.
    const pending = Array.from({ length: 48 }, () => postLarge(server.url, `junk-${randomUUID()}`, BODY_BYTES, more));
    const answered: number[] = [];
    for (const answer of pending) void answer.then((status) => answered.push(status ?? 0));
    const deadline = Date.now() + 15_000;
    while (answered.length < 44 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    // 44 answered while four bodies are still on their way: none of theirs was read.
    expect(answered).toEqual(Array(44).fill(503));
    release();
    expect(await Promise.all(pending)).toEqual(Array(48).fill(503));
    await server.closed(48);
    const whole = server.read.filter((bytes) => bytes > BODY_BYTES);
    expect(whole).toHaveLength(4);
    expect(await server.dedup.kept!.list()).toHaveLength(4);
  }, 30_000);
});
