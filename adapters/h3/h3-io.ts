import {
  type AdapterExchange,
  type AlreadyParsed,
  type ExchangeBinding,
  type FetchRequest,
  forwardedHeaders,
  handedBody,
  type HttpAnswer,
  isFetchRequest,
  type RequestBody,
  toFetchResponse,
} from 'webhook-cms-receiver/adapter-kit';
import {
  answerThrough,
  closeAfterAnswer,
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

/** What the handler returns to h3: h3 1 may have written the answer already. */
type H3Answer = Response | string | undefined;
type H3Exchange = AdapterExchange<H3Answer, Response>;
type H3Binding = ExchangeBinding<H3EventLike, H3Answer, Response>;

/** readBody and friends ran first: the same refusal on h3 1 and 2, so a route moves between them unchanged. */
const READ_FIRST: AlreadyParsed = {
  alreadyParsed: "h3's readBody (or readRawBody, readValidatedBody, readFormData) before the webhook handler",
  fix: 'Read nothing from the event before the webhook handler: keep readBody out of server middleware that runs for the webhook path, and do not call it in the webhook route (the handlers receive the verified, parsed event).',
};

/** A parser in a Node middleware, or a body handed over beside the request that is neither bytes nor a stream. */
const PARSED: AlreadyParsed = {
  alreadyParsed:
    'a body parser that ran before the webhook handler (a Node middleware mounted with fromNodeMiddleware?)',
  fix: READ_FIRST.fix,
};
const NODE_HINTS: ParserHints = { parser: PARSED.alreadyParsed, fix: PARSED.fix };

const NOT_AN_EVENT =
  'webhook-cms-receiver/h3: the handler was not given an h3 event (no Request on event.req, no event.node). Mount it with app.use, a router or as a Nitro route.';

/**
 * Tells h3 2 from h3 1 at run time, without importing either, and translates the event.
 * Throws a TypeError for anything that is not an h3 event (answered 500 by the kit).
 */
function h3Exchange(event: H3EventLike): H3Exchange {
  if (isFetchRequest(event.req)) return fetchExchange(event, event.req);
  const node = event.node as { req?: NodeRequest; res?: H3NodeResponse } | undefined;
  if (node?.req && node.res) return nodeExchange(event, node.req, node.res);
  throw new TypeError(NOT_AN_EVENT);
}

/** The h3 adapter for the kit: an unexpected failure is answered as a `Response` on h3 1 and 2. */
export const H3: H3Binding = { name: 'h3', exchange: h3Exchange, fallback: toFetchResponse };

/** h3 2: a Fetch `Request` everywhere; on Node, a refusal before the body also closes the socket. */
function fetchExchange(event: H3EventLike, request: FetchRequest): H3Exchange {
  const node = (event.runtime as { node?: { req?: NodeRequest; res?: NodeResponse } } | undefined)?.node;
  const answer = (http: HttpAnswer): Response => fetchResponseOnNode(http, node);
  const body = () => (request.bodyUsed ? READ_FIRST : request);
  return { request: { method: request.method, headers: request.headers, body }, answer, refusal: answer };
}

/**
 * h3 1: the Node request, unless a body was handed over beside it (`toWebHandler`,
 * `toPlainHandler`, Nitro's serverless presets, which put it on a mock request).
 */
function nodeExchange(event: H3EventLike, req: NodeRequest, res: H3NodeResponse): H3Exchange {
  const mock = '__unenv__' in req;
  return {
    request: nodeAdapterRequest(req, { ...NODE_HINTS, keptBody: () => keptBody(event, req) }),
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
  // Where h3 1's readBody and readRawBody leave their marks on the Node request.
  if (Symbol.for('h3ParsedBody') in req || Symbol.for('h3RawBody') in req) return READ_FIRST;
  const web = (event.web as { request?: unknown } | undefined)?.request;
  if (isFetchRequest(web)) return web.bodyUsed ? READ_FIRST : web;
  const handed = handedBody((event as { _requestBody?: unknown })._requestBody, PARSED, READ_FIRST);
  // Nitro's presets off Node call the app with a mock request whose `body` is the raw body.
  return handed ?? ('__unenv__' in req ? handedBody(req.body ?? new Uint8Array(0), PARSED, READ_FIRST) : undefined);
}
