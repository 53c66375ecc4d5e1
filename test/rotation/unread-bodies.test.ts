import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type ReceiverOptions, type Tenant } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

// Issue 45, defect 2: with a token source or in tenant mode, an unknown token's answer waits on
// a read or a lookup, and the whole unauthenticated body used to be read meanwhile (9 MiB where
// a fixed token reads 0.13 MiB). The decision is now awaited before the body: the contract's
// "stops reading (under 1 MiB read)" holds in every mode. Counted on the server's sockets.

const MiB = 1024 * 1024;
const BODY_BYTES = 9 * MiB;
const KNOWN = 'whk_known_site_token_0123456789';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const site: Tenant = { id: 'site-known', token: KNOWN };

/** A server whose sockets report how many bytes they read once they close. */
interface CountingServer extends RunningServer {
  /** Bytes read on each connection closed so far. */
  read: number[];
  /** Resolves once `count` connections have closed. */
  closed(count: number): Promise<number[]>;
}

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function countingServer(options: ReceiverOptions): Promise<CountingServer> {
  const receiver = createReceiver({ logger: false, ...options });
  const server = createServer(webhookHandler(receiver, { test: () => {} }));
  const read: number[] = [];
  const waiting: (() => void)[] = [];
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => {
      read.push(socket.bytesRead);
      for (const wake of waiting.splice(0)) wake();
    });
  });
  const running = await listen(server);
  servers.push(running);
  const closed = async (count: number) => {
    while (read.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    return read;
  };
  return { ...running, read, closed };
}

/**
 * Posts a signed head with a `Content-Length` of `bytes` and writes the body for as long as the
 * server takes it; resolves with the status once the server answered and closed (or gave up).
 */
function postLarge(url: string, token: string, bytes: number, close = false): Promise<{ status: number | undefined }> {
  const { hostname, port } = new URL(url);
  const { headers } = signDelivery({ token, payload: testPayload() });
  const lines = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-length')
    .map(([name, value]) => `${name}: ${value}`);
  const head = [
    'POST / HTTP/1.1',
    `Host: ${hostname}:${port}`,
    ...lines,
    `Content-Length: ${bytes}`,
    ...(close ? ['Connection: close'] : []),
    '',
    '',
  ].join('\r\n');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status) });
    };
    const timer = setTimeout(finish, 20_000);
    const pump = () => {
      while (!done && sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.byteLength, bytes - sent));
        sent += piece.byteLength;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (data) => {
      text += data.toString('latin1');
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(head);
    pump();
  });
}

const modes: { name: string; options: () => ReceiverOptions }[] = [
  { name: 'a token source', options: () => ({ token: async () => [KNOWN] }) },
  {
    name: 'tenant mode',
    options: () => ({
      tenants: async (hash: string) => {
        // A database round trip: the answer comes after the head has arrived.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return hash === sha256(KNOWN) ? site : undefined;
      },
    }),
  },
];

describe.each(modes)(
  'an unknown token with $name is refused before its body is read (issue 45, defect 2)',
  ({ options }) => {
    it('reads under 1 MiB of a 9 MiB body before answering 401', async () => {
      const server = await countingServer(options());
      // The known token first: a good list (or a cached site) exists, as on a live endpoint.
      expect((await postLarge(server.url, KNOWN, 0, true)).status).toBe(403);
      await server.closed(1);
      const answer = await postLarge(server.url, `whk_${randomBytes(16).toString('hex')}`, BODY_BYTES);
      expect(answer.status).toBe(401);
      const [, read] = await server.closed(2);
      expect(read).toBeLessThan(MiB);
    });

    it('48 such requests at once each read under 1 MiB: a flood costs heads, not bodies', async () => {
      const server = await countingServer(options());
      const flood = await Promise.all(
        Array.from({ length: 48 }, () => postLarge(server.url, `whk_${randomBytes(16).toString('hex')}`, BODY_BYTES)),
      );
      for (const answer of flood) expect(answer.status).toBe(401);
      const read = await server.closed(48);
      expect(Math.max(...read)).toBeLessThan(MiB);
      expect(read.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThan(48 * MiB);
    });

    it('a known token whose check waited still has its body read and verified', async () => {
      const server = await countingServer(options());
      const { headers, body } = signDelivery({ token: KNOWN, payload: testPayload() });
      const response = await fetch(`${server.url}/`, { method: 'POST', headers, body });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });
    });
  },
);
