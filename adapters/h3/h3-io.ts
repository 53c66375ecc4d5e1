import {
  type AdapterRequest,
  type AlreadyParsed,
  type FetchBody,
  forwardedHeaders,
  type HttpAnswer,
  isFetchBody,
  type RequestBody,
  toFetchResponse,
} from 'webhook-cms-receiver';
import {
  answerThrough,
  closeAfterAnswer,
  keptRaw,
  fetchResponseOnNode,
  type NodeRequest,
  type NodeResponse,
  nodeAdapterRequest,
  type ParserHints,
} from 'webhook-cms-receiver/node';

/**
 * The parts of an h3 1 or h3 2 event this adapter reads, described without h3's types so one
 * adapter fits both majors and h3 stays an optional peer. h3 2 has a Fetch `Request` on
 * `event.req` (and the Node objects on `event.runtime.node` when served by Node); h3 1 has
 * the Node objects on `event.node`, and `event.web.request` when served through `toWebHandler`.
 */
export interface H3EventLike {
  readonly req?: unknown;
  readonly node?: object | undefined;
  readonly runtime?: object | undefined;
  readonly web?: object | undefined;
  readonly handled?: boolean;
}

/** An h3 1 response: a Node `ServerResponse`, or the mock one h3 and Nitro use off Node. */
interface H3NodeResponse extends NodeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
}

/** A request translated for the adapter kit, and how to give h3 the answer. */
export interface H3Exchange {
  request: AdapterRequest;
  /** What the handler returns to h3 after answering (h3 1 may have written it already). */
  answer(http: HttpAnswer): Response | string | undefined;
  /** A refusal as a `Response` for the route to return (`verifyWebhook`). */
  refusal(http: HttpAnswer): Response;
}

/** readBody and friends ran first: the same refusal on h3 1 and 2, so a route moves between them unchanged. */
const READ_FIRST: AlreadyParsed = {
  alreadyParsed: "h3's readBody (or readRawBody, readValidatedBody, readFormData) before the webhook handler",
  fix: 'Read nothing from the event before the webhook handler: keep readBody out of server middleware that runs for the webhook path, and do not call it in the webhook route (the handlers receive the verified, parsed event).',
};

const NODE_HINTS: ParserHints = {
  parser: 'a body parser that ran before the webhook handler (a Node middleware mounted with fromNodeMiddleware?)',
  fix: READ_FIRST.fix,
};

// Where h3 1's readBody and readRawBody leave their marks on the Node request.
const PARSED_BODY = Symbol.for('h3ParsedBody');
const RAW_BODY = Symbol.for('h3RawBody');

/**
 * Tells h3 2 from h3 1 at run time, without importing either, and translates the event.
 * Throws a TypeError for anything that is not an h3 event.
 */
export function h3Exchange(event: H3EventLike): H3Exchange {
  if (isFetchRequest(event.req)) return fetchExchange(event, event.req);
  const node = event.node as { req?: NodeRequest; res?: H3NodeResponse } | undefined;
  if (node?.req && node.res) return nodeExchange(event, node.req, node.res);
  throw new TypeError(
    'webhook-cms-receiver/h3: the handler was not given an h3 event (no Request on event.req, no event.node). Mount it with app.use, a router or as a Nitro route.',
  );
}

interface FetchRequest extends FetchBody {
  readonly method: string;
  readonly headers: FetchBody['headers'] & object;
}

function isFetchRequest(value: unknown): value is FetchRequest {
  return isFetchBody(value) && typeof value.headers?.get === 'function';
}

/** h3 2: a Fetch `Request` everywhere; on Node, a refusal before the body also closes the socket. */
function fetchExchange(event: H3EventLike, request: FetchRequest): H3Exchange {
  const node = (event.runtime as { node?: { req?: NodeRequest; res?: NodeResponse } } | undefined)?.node;
  const refusal = (http: HttpAnswer): Response => fetchResponseOnNode(http, node);
  return {
    request: {
      method: request.method,
      headers: request.headers,
      body: () => (request.bodyUsed ? READ_FIRST : request),
    },
    answer: refusal,
    refusal,
  };
}

/**
 * h3 1: the Node request, unless a body was handed over beside it (`toWebHandler`,
 * `toPlainHandler`, Nitro's serverless presets, which put it on a mock request).
 */
function nodeExchange(event: H3EventLike, req: NodeRequest, res: H3NodeResponse): H3Exchange {
  const mock = '__unenv__' in req;
  const node = nodeAdapterRequest(req, NODE_HINTS);
  return {
    request: { method: req.method, headers: node.headers, body: () => keptBody(event, req) ?? node.body() },
    answer(http) {
      if (event.handled) return undefined;
      // A refusal before the body goes out on the socket at once (not on a mock request);
      // anything else through h3, so its response hooks see it as usual.
      return answerThrough(req, res, mock ? { ...http, close: false } : http, {
        write(kept) {
          res.statusCode = kept.status;
          for (const [name, value] of Object.entries(forwardedHeaders(http))) res.setHeader(name, value);
          return kept.text;
        },
      });
    },
    refusal(http) {
      if (http.close && !mock) closeAfterAnswer(req, res, http);
      return toFetchResponse(http);
    },
  };
}

/** A body h3 1 holds beside the Node request, or undefined to read the Node request itself. */
function keptBody(event: H3EventLike, req: NodeRequest): RequestBody | undefined {
  if (PARSED_BODY in req || RAW_BODY in req) return READ_FIRST;
  const web = (event.web as { request?: unknown } | undefined)?.request;
  if (isFetchRequest(web)) return web.bodyUsed ? READ_FIRST : web;
  const handed = (event as { _requestBody?: unknown })._requestBody;
  if (handed !== undefined && handed !== null) return rawOrRefused(handed);
  // Nitro's presets off Node call the app with a mock request whose `body` is the raw body.
  if ('__unenv__' in req) return rawOrRefused(req.body ?? new Uint8Array(0));
  return undefined;
}

function rawOrRefused(body: unknown): RequestBody {
  const raw = keptRaw(body, body instanceof ArrayBuffer ? new Uint8Array(body) : undefined);
  if (raw !== undefined) return raw;
  const stream = body as Partial<ReadableStream<Uint8Array>>;
  if (typeof stream.getReader === 'function') return stream.locked ? READ_FIRST : (body as ReadableStream<Uint8Array>);
  return { alreadyParsed: NODE_HINTS.parser, fix: NODE_HINTS.fix };
}
