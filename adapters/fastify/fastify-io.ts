import type { Receiver, WebhookEvent } from 'webhook-cms-receiver';
import type { AdapterRequest, HttpAnswer } from 'webhook-cms-receiver/adapter-kit';
import {
  answerThrough,
  keptRaw,
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
  unreadStream,
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
  code(statusCode: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload: string): FastifyReplyLike;
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
 * a parsed body (`fastify-raw-body` keeps a UTF-8 string by default), else whatever the Node
 * request still holds (answered 500 with the Fastify fix when a parser consumed it).
 */
export function fastifyAdapterRequest(request: FastifyRequestLike, hints: ParserHints): AdapterRequest {
  const { body, rawBody } = request;
  const kept = () => unreadStream(body) ?? keptRaw(body instanceof Uint8Array ? body : undefined, rawBody);
  // The Node helper reads every copy of a repeated Authorization from `request.raw`.
  // Spelled out: a spread with a property after it costs a microsecond a request on Node 20.
  return nodeAdapterRequest(request.raw, { parser: hints.parser, fix: hints.fix, keptBody: kept });
}

/**
 * Writes an answer unless the reply was already sent: a refusal that closes the connection
 * goes straight to the Node response, hijacked from Fastify (see `answerThrough`); every other
 * answer goes through the reply, so the app's `onSend` hooks and request log see it. Returns
 * the reply to wait on, as an async hook must.
 */
export function sendFastifyAnswer(request: FastifyRequestLike, reply: FastifyReplyLike, answer: HttpAnswer) {
  if (reply.sent) return undefined;
  return answerThrough(request.raw, reply.raw, answer, {
    detach: () => reply.hijack(),
    write: (http) => reply.code(http.status).headers(http.headers).send(http.text),
  });
}
