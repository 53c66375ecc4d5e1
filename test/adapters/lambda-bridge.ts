import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LambdaResult } from 'webhook-cms-receiver/lambda';
import { type LambdaSource, lambdaEvent } from './lambda-events.js';

/** A Lambda HTTP handler, as the adapter makes one. */
export type LambdaHandler = (event: never) => Promise<LambdaResult>;

/** What the bridge stands in for. */
export interface BridgeOptions {
  source: LambdaSource;
  /** Hand every body over base64-encoded, as a REST API with binary media type `*∕*` does. Default: text bodies stay text. */
  base64?: boolean;
}

/**
 * API Gateway's payload limit (10 MB): the gateway reads no more of a body than this. Past it,
 * the bridge stops reading and invokes the function with what arrived, already over any
 * `maxBodyBytes` the suites use, so the answer is the handler's, not the bridge's.
 */
export const PAYLOAD_LIMIT = 10 * 1024 * 1024;

/**
 * A node:http server standing in for a Lambda event source: it buffers each request the way
 * the platform does before the function runs, hands the handler the event that source would
 * (headers as the source shows them, the body as text or base64), and writes the result back
 * as the source would, ALB's status line and multi-value headers included.
 *
 * @example
 * ```ts
 * const { url, close } = await listen(lambdaBridge(webhookHandler(receiver, handlers), { source: 'http-api' }));
 * ```
 */
export function lambdaBridge(handler: LambdaHandler, options: BridgeOptions): Server {
  return createServer((req, res) => {
    readUpTo(req, PAYLOAD_LIMIT)
      .then((body) => handler(lambdaEvent(options.source, clientRequest(req, body, options)) as never))
      .then((result) => writeResult(req, res, result))
      .catch((error: unknown) => {
        // A status no adapter answers, so a fault of the bridge cannot pass for the handler's answer.
        if (!res.headersSent) res.writeHead(599).end(String(error));
      });
  });
}

function clientRequest(req: IncomingMessage, body: Uint8Array, options: BridgeOptions) {
  const headers: [string, string][] = [];
  // rawHeaders: every copy, in order, with the casing the client sent (REST APIs keep it).
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  const textual = /^(text\/|application\/(json|xml)|[^;]*\+(json|xml))/i.test(req.headers['content-type'] ?? '');
  return { method: req.method ?? 'GET', headers, body, base64: options.base64 === true || !textual };
}

/** The body up to `limit` bytes (plus the chunk that crossed it); stops listening there. */
function readUpTo(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', done);
      req.off('error', reject);
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      req.pause();
      done();
    };
    req.on('data', onData);
    req.on('end', done);
    req.on('error', reject);
  });
}

function writeResult(req: IncomingMessage, res: ServerResponse, result: LambdaResult): void {
  const headers: Record<string, string | string[]> = { ...result.headers, ...result.multiValueHeaders };
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  // ALB's status line carries statusDescription's text.
  const reason = result.statusDescription?.replace(/^\d+\s*/, '');
  // Like a gateway that stopped reading: a body left unread ends the connection.
  if (!req.readableEnded) res.once('finish', () => setTimeout(() => req.socket.destroy(), 100).unref());
  if (reason) res.writeHead(result.statusCode, reason, headers);
  else res.writeHead(result.statusCode, headers);
  res.end(body);
}
