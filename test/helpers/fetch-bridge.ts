import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

type FetchHandler = (request: Request) => Promise<Response>;

/**
 * A plain node:http server that turns each request into a native Fetch `Request`, the way
 * Bun, Deno or a Worker hand one over, and writes the `Response` back. The body stays a
 * stream, so a handler that stops reading early really leaves bytes unread.
 *
 * @example
 * ```ts
 * const { url, close } = await listen(fetchServer(webhookHandler(receiver, handlers)));
 * ```
 */
export function fetchServer(handler: FetchHandler): Server {
  return createServer((req, res) => {
    handler(toRequest(req)).then(
      (response) => {
        // As Bun and Deno do: a body the handler left unread is not drained but cut off.
        if (!req.readableEnded) res.once('finish', () => setTimeout(() => req.socket?.destroy(), 100).unref());
        return writeResponse(response, res);
      },
      (error: unknown) => {
        res.writeHead(599).end(String(error));
      },
    );
  });
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  // Every copy of every header, as a runtime's parser keeps them (Node's req.headers drops a second Authorization).
  for (const [name, value] of Object.entries(req.headersDistinct)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    // Required by Node's fetch for a streaming request body.
    duplex: 'half',
  } as RequestInit);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const text = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(text);
}
