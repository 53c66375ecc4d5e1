import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { inspectorPage } from './page.js';
import { RecordFile } from './records.js';
import { ReplayRefused, replay, type SendableEvent, sendNew } from './outgoing.js';
import { sameOriginPost } from './same-origin.js';

/** Options of {@link startInspectorServer}. */
export interface InspectorServerOptions {
  file: string;
  /** Where replays and new deliveries go, e.g. `http://127.0.0.1:3000/webhook`. */
  target?: string;
  /** The token replays and new deliveries are signed with; never sent to the page. */
  token?: string;
  host: string;
  port: number;
}

/** A running inspector page. */
export interface InspectorServer {
  /** The page's address, with the per-run secret in its path. */
  url: string;
  close(): Promise<void>;
}

const POLL_MS = 250;

/**
 * Serves the inspector page, its live event stream and its replay and send actions. Every
 * route sits under a per-run secret path, and requests whose Host is not the address served
 * are refused, so another site in the same browser cannot reach it (DNS rebinding); every
 * POST must also come from the page itself (`Origin`, `Sec-Fetch-Site`), or gets 403.
 */
export async function startInspectorServer(options: InspectorServerOptions): Promise<InspectorServer> {
  const secret = randomBytes(18).toString('base64url');
  const base = `/s/${secret}/`;
  const records = new RecordFile(options.file);
  const streams = new Set<ServerResponse>();
  let allowedHost = '';

  const server: Server = createServer((req, res) => {
    if (req.headers.host !== allowedHost || !req.url?.startsWith(base)) return reply(res, 404, { error: 'Not found' });
    const route = req.url.slice(base.length).split('?')[0];
    if (req.method === 'GET' && route === '') return page(res);
    if (req.method === 'GET' && route === 'events') return openStream(res);
    if (req.method === 'POST' && !sameOriginPost(req.headers, `http://${allowedHost}`))
      return reply(res, 403, {
        error: `Refused: a POST to the inspector must come from its own page (Origin http://${allowedHost}, Sec-Fetch-Site: same-origin).`,
      });
    if (req.method === 'POST' && (route === 'replay' || route === 'send')) return void act(route, req, res);
    reply(res, 404, { error: 'Not found' });
  });

  const page = (res: ServerResponse) => {
    const config = {
      target: options.target ?? null,
      canSend: Boolean(options.target && options.token),
      file: resolve(options.file),
    };
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
    });
    res.end(inspectorPage(config));
  };

  const openStream = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`event: reset\ndata: ${JSON.stringify(new RecordFile(options.file).all())}\n\n`);
    streams.add(res);
    res.on('close', () => streams.delete(res));
  };

  records.all();
  const timer = setInterval(() => {
    const { lines, reset } = records.newLines();
    if (reset) {
      const all = JSON.stringify(records.all());
      for (const stream of streams) stream.write(`event: reset\ndata: ${all}\n\n`);
      return;
    }
    for (const line of lines) for (const stream of streams) stream.write(`event: delivery\ndata: ${line}\n\n`);
  }, POLL_MS);

  const act = async (route: 'replay' | 'send', req: IncomingMessage, res: ServerResponse) => {
    try {
      if (!options.target || !options.token) {
        return reply(res, 409, {
          error: 'Start inspect with --target URL and the token in WEBHOOK_TOKEN to replay or send.',
        });
      }
      const input = JSON.parse(await readText(req)) as { id?: string; newDeliveryId?: boolean; event?: SendableEvent };
      const destination = { target: options.target, token: options.token };
      if (route === 'send') return reply(res, 200, await sendNew(input.event ?? 'test', destination));
      const record = records.find(String(input.id));
      if (!record) return reply(res, 404, { error: 'No recorded delivery has that id.' });
      reply(res, 200, await replay(record, { ...destination, newDeliveryId: input.newDeliveryId === true }));
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      const status = error instanceof ReplayRefused ? 409 : error instanceof SyntaxError ? 400 : 502;
      reply(res, status, { error: options.token ? message.split(options.token).join('***') : message });
    }
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  allowedHost = `${host}:${port}`;
  return {
    url: `http://${allowedHost}${base}`,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        for (const stream of streams) stream.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readText(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 64 * 1024) throw new Error('request too large');
  }
  return text;
}
