import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { WebhookEvent, WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';
import { rawExchange } from '../helpers/raw-socket.js';
import { keepAliveClient, writeFirst } from '../helpers/wire-client.js';
import { MAX_BODY_BYTES, TOKEN } from './deliveries.js';
import type { RunningServer } from '../helpers/listen.js';

/** What a wire scenario needs from the suite: a fresh server with these handlers, and its endpoint. */
export type ServeForWire = (handlers: WebhookHandlers) => Promise<{ endpoint: string; running: RunningServer }>;

const headerLines = (headers: Record<string, string>): string[] =>
  Object.entries(headers).map(([name, value]) => `${name}: ${value}`);

const connectionOf = (text: string): string | undefined => /\r\nconnection: *([^\r]*)\r\n/i.exec(text)?.[1];

/**
 * Contract v3, "On the wire": what leaves the socket on a Node host, for adapters that own a
 * Node connection. Run by `adapterScenarios` for every adapter and host version.
 */
/**
 * How long a raw exchange waits for a server that neither answers nor closes: a guard against a
 * hang only, far above any loaded machine's delay, never what a test asserts.
 */
export const HANG_GUARD_MS = 15_000;

/**
 * Resolves with the bytes the server read from its next connection, once the server's side of
 * it has closed: a test waits for the close itself instead of for time to pass.
 *
 * @example
 * ```ts
 * const closedOnServer = nextConnectionClosed(server);
 * await rawExchange(endpoint, lines, { endlessBody: true });
 * expect(await closedOnServer).toBeLessThan(1024 * 1024);
 * ```
 */
export function nextConnectionClosed(server: NetServer): Promise<number> {
  return new Promise((resolve) => {
    server.once('connection', (socket: Socket) => socket.once('close', () => resolve(socket.bytesRead)));
  });
}

export function wireScenarios(name: string, serve: ServeForWire): void {
  describe(`${name}: on the wire (contract v3)`, () => {
    it('keeps a keep-alive client working after each kind of refusal: Connection: close where it closes, no reset', async () => {
      const { endpoint } = await serve({});
      const client = keepAliveClient();
      try {
        const good = () => {
          const { headers, body } = signDelivery({ token: TOKEN, payload: testPayload() });
          return { headers, body: String(body) };
        };
        const wrongToken = signDelivery({ token: 'not-the-token', payload: testPayload() });
        const tampered = good();
        const refusals = [
          { expect: 401, close: true, outgoing: { headers: wrongToken.headers, body: String(wrongToken.body) } },
          { expect: 405, close: true, outgoing: { method: 'GET' } },
          {
            expect: 413,
            close: true,
            outgoing: { headers: good().headers, body: new Uint8Array(MAX_BODY_BYTES + 1).fill(0x20) },
          },
          {
            expect: 403,
            close: false,
            outgoing: { headers: tampered.headers, body: tampered.body.replace('test', 'tset') },
          },
        ];
        for (const refusal of refusals) {
          const answer = await client.send(endpoint, refusal.outgoing);
          expect({ status: answer.status, error: answer.error }).toEqual({ status: refusal.expect, error: undefined });
          if (refusal.close) expect(answer.connection).toBe('close');
          else expect(answer.connection).not.toBe('close');
          // The next delivery on whatever connection the client keeps must be served, never reset.
          expect(await client.send(endpoint, good())).toMatchObject({ status: 200, error: undefined });
        }
      } finally {
        client.close();
      }
    });

    it.each([
      ['Content-Length', false],
      ['chunked', true],
    ])(
      'answers 413 to a write-first client with a valid token and an over-limit body (%s)',
      async (_framing, chunked) => {
        const { endpoint } = await serve({});
        const { headers } = signDelivery({ token: TOKEN, payload: testPayload() });
        const body = new Uint8Array(MAX_BODY_BYTES + 1024 * 1024).fill(0x20);
        const exchange = await writeFirst(endpoint, headerLines(headers), body, { chunked });
        expect(exchange.status).toBe(413);
        expect(exchange.text).toContain('{"error":"Payload too large"}');
        expect(connectionOf(exchange.text)).toBe('close');
      },
    );

    it('sends Connection: close with a 401 to an endless unauthenticated body, reads under 1 MiB of it and closes', async () => {
      const { endpoint, running } = await serve({});
      const closedOnServer = nextConnectionClosed(running.server!);
      const exchange = await rawExchange(endpoint, ['Authorization: Bearer wrong', 'Content-Type: application/json'], {
        endlessBody: true,
        giveUpMs: HANG_GUARD_MS,
      });
      expect(exchange.status).toBe(401);
      expect(connectionOf(exchange.text)).toBe('close');
      // The server closed it (an event, not a deadline): the client only gives up on a hang.
      expect(exchange.closedAfterMs).toBeDefined();
      expect(await closedOnServer).toBeLessThan(1024 * 1024);
    });

    it('writes nothing after a handler that answered the Node response itself, and the host keeps serving', async () => {
      let current: ServerResponse | undefined;
      const handlers: WebhookHandlers = {
        'article.sync': () => {
          current?.writeHead(202, { 'content-type': 'text/plain' }).end('{"handled":"by the handler"}');
          return { publishedUrl: 'https://blog.example.com/self' };
        },
        // An answer ending in `"}`, which is where rawExchange stops reading.
        test: () => ({ publishedUrl: 'https://blog.example.com/next' }),
      };
      const { endpoint, running } = await serve(handlers);
      (running.server as Server).prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        current = res;
      });
      // A host that tries to write after the handler logs it (@hono/node-server) or throws (srvx).
      const errors = vi.spyOn(console, 'error');
      onTestFinished(() => errors.mockRestore());
      const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      const first = await rawExchange(endpoint, headerLines(delivery.headers), { body: String(delivery.body) });
      expect(first.status).toBe(202);
      // Give a late second write time to crash the process before the next request.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const next = signDelivery({ token: TOKEN, payload: testPayload() });
      const second = await rawExchange(endpoint, headerLines(next.headers), { body: String(next.body) });
      expect(second.status).toBe(200);
      const logged = errors.mock.calls.map((call) => call.map(String).join(' ')).join('\n');
      expect(logged).not.toMatch(/after they are sent|write after end|ERR_STREAM_WRITE_AFTER_END/i);
    });
  });
}

/**
 * Contract v3: a repeated `X-Service-Delivery-Id` as it arrives on the wire, for every adapter
 * (serverless bridges included).
 */
export function repeatedDeliveryIdScenario(name: string, serve: ServeForWire): void {
  it(`${name}: refuses X-Service-Delivery-Id sent twice with 400 Invalid delivery id and runs no handler`, async () => {
    const events: WebhookEvent[] = [];
    const { endpoint } = await serve({ 'article.sync': (event) => void events.push(event) });
    const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload(), deliveryId: 'delivery-a' });
    const exchange = await rawExchange(
      endpoint,
      [...headerLines(delivery.headers), 'X-Service-Delivery-Id: delivery-b'],
      { body: String(delivery.body) },
    );
    expect(exchange.status).toBe(400);
    expect(exchange.text).toContain('{"error":"Invalid delivery id"}');
    expect(events).toHaveLength(0);
  });
}
