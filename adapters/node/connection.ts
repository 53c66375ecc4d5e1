import { type DiscardLimits, type HttpAnswer, toFetchResponse } from 'webhook-cms-receiver/adapter-kit';
import type { NodeRequest, NodeResponse, NodeSocket } from './node-objects.js';

// How long a refused connection stays half-closed, reading nothing, before it is destroyed:
// long enough for the client to read the answer before the reset its unread body causes.
const LINGER_MS = 250;

/**
 * For Fetch-style hosts on Node that hand the adapter the Node objects (`@hono/node-server`'s
 * `incoming`/`outgoing`, srvx's `request.runtime.node`, so Hono, h3 2 and the Fetch adapter):
 * the host writes the `Response`, so the `Connection: close` a refusal needs is set on the
 * Node response here, where the host's `writeHead` merges it, and the connection is then
 * closed as {@link closeAfterAnswer} does. Does nothing for answers that keep the connection.
 *
 * @example
 * ```ts
 * prepareNodeAnswer(c.env.incoming, c.env.outgoing, answer);
 * return toFetchResponse(answer);
 * ```
 */
export function prepareNodeAnswer(req: NodeRequest, res: NodeResponse, answer: HttpAnswer): void {
  const socket = answer.close ? socketOf(req, res) : undefined;
  if (!socket || res.headersSent || res.writableEnded) return;
  // HTTP/2 has no Connection header (RFC 9113 §8.2.2): the stream is closed all the same below.
  if (req.httpVersionMajor !== 2) {
    try {
      res.setHeader?.('connection', 'close');
    } catch {
      // A response that refuses the header is closed all the same below.
    }
  }
  holdOpenBriefly(socket);
  closeAfterAnswer(req, res, answer);
}

/**
 * The `Response` for a Fetch-style host on Node (`@hono/node-server`, srvx) that handed over
 * its Node objects: the answer, with the connection prepared as {@link prepareNodeAnswer}
 * does; or, when something else (the handler, a middleware) already wrote the Node response,
 * an empty `Response` marked so that neither host writes after it (a write after the end
 * throws in srvx and is logged by `@hono/node-server`). Without Node objects, the plain answer.
 *
 * @example
 * ```ts
 * return fetchResponseOnNode(answer, { req: c.env.incoming, res: c.env.outgoing });
 * ```
 */
export function fetchResponseOnNode(answer: HttpAnswer, node?: { req?: NodeRequest; res?: NodeResponse }): Response {
  const { req, res } = node ?? {};
  if (res && (res.headersSent || res.writableEnded)) {
    const untouched = new Response(null, { headers: ALREADY_SENT });
    // @hono/node-server 2 replaces the global Response with a lazy one whose fast path writes
    // without looking at the header; reading `body` turns it into a full Response first.
    void untouched.body;
    return untouched;
  }
  if (req && res) prepareNodeAnswer(req, res, answer);
  return toFetchResponse(req?.httpVersionMajor === 2 ? { ...answer, headers: http2Headers(answer.headers) } : answer);
}

// @hono/node-server writes nothing for a Response with this header; srvx writes nothing once headers are sent.
const ALREADY_SENT = { 'x-hono-already-sent': 'true' };

/**
 * Once the answer is out, reads no more of the request and closes its connection shortly
 * after: for refusals made before the body was read. For a 413 to a sender that held a valid
 * token (`answer.discard`), reads and throws away the rest of the body first, within the
 * limits, so a client that writes before it reads gets its answer instead of a reset.
 *
 * @example
 * ```ts
 * if (answer.close) closeAfterAnswer(req, res, answer);
 * ```
 */
export function closeAfterAnswer(req: NodeRequest, res: NodeResponse, answer?: Pick<HttpAnswer, 'discard'>): void {
  const socket = socketOf(req, res);
  if (!socket) return;
  const stop = (): void => {
    // Both: Node resumes the request to discard its body once the answer is out, and the
    // request's flow, not the socket's, is what makes the parser read on. The client gets the
    // answer and a FIN; what it still sends stays in the kernel until the socket goes.
    req.pause?.();
    socket.pause?.();
    // And keep it paused: a host that drains unread bodies itself once the answer is out
    // (@hono/node-server, up to 64 MiB or 500 ms) would resume the request after this.
    req.resume = () => req;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS) as unknown as { unref?: () => void };
    timer.unref?.();
  };
  const discard = answer?.discard;
  // Always on 'finish', even when the answer is already flushed: Node's own listener resumes
  // the request there, and pausing before it would be undone.
  res.once('finish', discard ? () => discardBody(req, socket, discard, stop) : stop);
}

/** Reads the rest of the body into nothing until it ends (then closes) or a limit is hit (then stops). */
function discardBody(req: NodeRequest, socket: NodeSocket, limits: DiscardLimits, stop: () => void): void {
  if (req.readableEnded || !req.on) return void socket.destroy();
  let read = 0;
  let done = false;
  const finish = (then: () => void): void => {
    if (done) return;
    done = true;
    clearTimeout(timer as unknown as number);
    req.removeListener?.('data', onData);
    then();
  };
  const onData = (chunk: Uint8Array | string): void => {
    read += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    if (read > limits.maxBytes) finish(stop);
  };
  const timer = setTimeout(() => finish(stop), limits.maxMs) as unknown as { unref?: () => void };
  timer.unref?.();
  req.on('data', onData);
  req.once?.('end', () => finish(() => socket.destroy()));
  req.resume?.();
}

/**
 * The socket a refusal may close: HTTP/2 streams share theirs, so they are left to the
 * session. The response's, when a host's body stream already let go of the request's.
 */
export function socketOf(req: NodeRequest, res: NodeResponse): NodeSocket | undefined {
  if (req.httpVersionMajor === 2) return undefined;
  return req.socket ?? res.socket ?? undefined;
}

/**
 * With `Connection: close`, Node destroys the socket as soon as the answer is written; with
 * a body still arriving, that sends a reset that can reach the client before it has read the
 * answer. Half-closing instead (FIN) lets the answer through; the connection is destroyed
 * once the reading stops.
 */
export function holdOpenBriefly(socket: NodeSocket): void {
  try {
    socket.destroySoon = () => socket.end?.();
  } catch {
    // A socket that refuses the property (a proxy) is closed the usual way.
  }
}

/**
 * An answer's headers for an HTTP/2 stream: without `Connection`, which HTTP/2 forbids (RFC 9113
 * §8.2.2) and Node's compat API drops with a warning printed on every refusal.
 */
export function http2Headers(headers: HttpAnswer['headers']): HttpAnswer['headers'] {
  if (!('connection' in headers)) return headers;
  const { connection: _dropped, ...rest } = headers;
  return rest;
}
