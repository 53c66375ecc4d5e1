import type { AdapterRequest, HttpAnswer, Receiver, RequestBody, WebhookEvent } from 'webhook-cms-receiver';
import {
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
  sendNodeAnswer,
} from 'webhook-cms-receiver/node';

/**
 * The parts of a Fastify 4 or 5 request this adapter reads, described without Fastify's types
 * so one adapter fits both majors.
 */
export interface FastifyRequestLike {
  /** The Node request underneath. */
  raw: NodeRequest;
  /** What the route's content-type parser produced: raw bytes, the unread stream, or a parsed value. */
  body?: unknown;
  /** Raw bytes some setups keep beside the parsed body: NestJS `rawBody: true`, `fastify-raw-body`. */
  rawBody?: unknown;
  /** Set by `verifyWebhook`. */
  webhookEvent?: WebhookEvent | undefined;
}

/** The parts of a Fastify 4 or 5 reply this adapter writes. */
export interface FastifyReplyLike {
  /** The Node response underneath. */
  raw: NodeResponse;
  readonly sent: boolean;
  hijack(): unknown;
  code(statusCode: number): unknown;
  headers(values: Record<string, string>): unknown;
  send(payload: string): unknown;
}

/** The Fastify fix for a route whose body a parser already consumed, with the receiver's own limit. */
export function fastifyHints(receiver: Receiver): ParserHints {
  const rawParser = `scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: ${receiver.maxBodyBytes} }, (request, body, done) => done(null, body))`;
  return {
    parser: "Fastify's JSON content-type parser (or another parser that kept no raw bytes)",
    fix: `Register the route with app.register(webhookPlugin, { receiver, handlers, path: '/webhook' }), which reads the raw body in its own scope, or give the route's encapsulated scope ${rawParser}.`,
  };
}

/**
 * Describes a Fastify request for the adapter kit. The body is, in this order: bytes a buffer
 * parser produced, the unread stream `webhookPlugin`'s parser passed on, raw bytes kept beside
 * a parsed body, else whatever the Node request still holds (answered 500 with the Fastify fix
 * when a parser consumed it).
 */
export function fastifyAdapterRequest(request: FastifyRequestLike, hints: ParserHints): AdapterRequest {
  // The Node helper reads every copy of a repeated Authorization from `request.raw`.
  const node = nodeAdapterRequest(request.raw, hints);
  return { method: node.method, headers: node.headers, body: () => keptBody(request) ?? node.body() };
}

function keptBody(request: FastifyRequestLike): RequestBody | undefined {
  const { body, rawBody } = request;
  if (body instanceof Uint8Array || isUnreadStream(body)) return body;
  // `fastify-raw-body` keeps a UTF-8 string by default: the core encodes it back to the same bytes.
  if (rawBody instanceof Uint8Array || typeof rawBody === 'string') return rawBody;
  return undefined;
}

function isUnreadStream(body: unknown): body is AsyncIterable<Uint8Array | string> {
  if (typeof body !== 'object' || body === null || !(Symbol.asyncIterator in body)) return false;
  const stream = body as { on?: unknown; readableEnded?: boolean };
  return typeof stream.on === 'function' && stream.readableEnded !== true;
}

/**
 * Writes an answer unless the reply was already sent. A refusal made before the body was read
 * goes straight to the Node response (hijacked from Fastify), which then stops reading and
 * closes the connection; every other answer goes through the reply, so the app's `onSend`
 * hooks and request log see it. Returns the reply to wait on, as an async hook must.
 */
export function sendFastifyAnswer(
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
  answer: HttpAnswer,
): FastifyReplyLike | undefined {
  if (reply.sent || reply.raw.headersSent) return undefined;
  if (answer.close) {
    reply.hijack();
    sendNodeAnswer(request.raw, reply.raw, answer);
    return undefined;
  }
  reply.code(answer.status);
  reply.headers(answer.headers);
  reply.send(answer.text);
  return reply;
}
