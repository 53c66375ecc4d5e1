import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { testPayload } from 'webhook-cms-receiver/testing';
import { send } from '../helpers/http-client.js';
import { listen } from '../helpers/listen.js';
import { deliveryAt, JSON_TYPE, nowSeconds, TOKEN } from './deliveries.js';

/**
 * Express gives every request and response a prototype of its own, so each property read on
 * them that is not an own property looks along the whole prototype chain (issue 37: the
 * Express adapters' instruction counts). This puts a recording proxy in that chain, as
 * Express's prototype sits there, and lists every name the chain was asked for.
 */
function recordLookups<T extends object>(target: T): string[] {
  const asked: string[] = [];
  const original = Object.getPrototypeOf(target) as object;
  const recorder = new Proxy(original, {
    get(proto, key, receiver) {
      if (typeof key === 'string') asked.push(key);
      return Reflect.get(proto, key, receiver);
    },
    has(proto, key) {
      if (typeof key === 'string') asked.push(key);
      return Reflect.has(proto, key);
    },
  });
  Object.setPrototypeOf(target, recorder);
  return asked;
}

/** A node:http server whose adapter sees recorded requests: the URL, and the names the last request's chain was asked for. */
async function serveRecorded(): Promise<{ url: string; asked: { req: string[] } }> {
  const handle = webhookHandler(createReceiver({ token: TOKEN }), { 'article.sync': () => {} });
  const asked = { req: [] as string[] };
  const server = await listen(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      asked.req = recordLookups(req);
      void handle(req, res);
    }),
  );
  onTestFinished(() => server.close());
  return { url: server.url, asked };
}

const OK = { status: 200, contentType: JSON_TYPE, allow: undefined, body: { ok: true } };
const count = (names: string[], name: string): number => names.filter((n) => n === name).length;

describe('the Node adapters read a request through its prototype chain sparingly (Express swaps it per request)', () => {
  it('never asks a Node request for what only a promise or a Fetch request has', async () => {
    const served = await serveRecorded();
    const answer = await send(`${served.url}/webhook`, deliveryAt(testPayload(), nowSeconds(), 'reads-1'));
    expect(answer).toEqual(OK);
    expect(served.asked.req).not.toContain('then');
    expect(served.asked.req).not.toContain('arrayBuffer');
  });

  it('looks up the listener methods once per read, not once per listener', async () => {
    const served = await serveRecorded();
    const answer = await send(`${served.url}/webhook`, deliveryAt(testPayload(), nowSeconds(), 'reads-2'));
    expect(answer).toEqual(OK);
    // The kit tells a Node stream by its events twice (both before the first listener,
    // so on Express they hit the cache the first one filled), then reads each method once
    // more to attach four listeners and remove them: not once per listener (six each before).
    expect(count(served.asked.req, 'on')).toBeLessThanOrEqual(4);
    expect(count(served.asked.req, 'removeListener')).toBeLessThanOrEqual(4);
  });
});
