import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { probeEndpoint } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { expectedRefusal } from './quiet.js';

const token = 'probe-405-token-3e9a1c';
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A route as Next.js App Router serves `export const POST` alone: the receiver for POST, and for
 * every other method the framework's own answer, an empty 405 with no Allow header (Next's
 * handleMethodNotAllowedResponse is `new Response(null, { status: 405 })`).
 */
async function nextStyleRoute(allow?: string): Promise<string> {
  const receive = webhookHandler(createReceiver({ token, onRejected: expectedRefusal }), {});
  server = await listen(
    createServer((req, res) => {
      if (req.method === 'POST') return void receive(req, res);
      res.writeHead(405, allow === undefined ? {} : { Allow: allow }).end();
    }),
  );
  return `${server.url}/webhook`;
}

describe("probeEndpoint() and a framework's own 405 for GET", () => {
  it('passes the empty 405 Next.js answers for a method the route does not export', async () => {
    const result = await probeEndpoint(await nextStyleRoute(), { token });
    const get = result.rows.find((row) => row.name === 'GET')!;
    expect(get).toMatchObject({ result: 'pass', reason: expect.stringMatching(/^405 .*framework/) });
    expect(result.rows.filter((row) => row.result !== 'pass')).toEqual([]);
  });

  it('still warns on a 405 whose Allow leaves POST out: the route says it takes no POST', async () => {
    const result = await probeEndpoint(await nextStyleRoute('GET, HEAD'), { token });
    expect(result.rows.find((row) => row.name === 'GET')).toMatchObject({
      result: 'warn',
      reason: expect.stringContaining('Allow: GET, HEAD'),
    });
  });
});
