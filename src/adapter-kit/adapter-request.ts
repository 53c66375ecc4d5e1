import type { HeadersInput } from '../input/headers.js';
import type { ContextRunner } from './context-runner.js';
import type { BodyStream, FetchBody } from './read-body.js';

/**
 * A body an adapter can hand over: already read, still a stream, a whole Fetch `Request`
 * (read with `arrayBuffer()` when its `Content-Length` allows), or consumed by a parser.
 * @group Adapter kit
 */
export type RequestBody = Uint8Array | string | BodyStream | FetchBody | AlreadyParsed | Base64Body;

/**
 * A body a platform handed over base64-encoded (AWS Lambda's `isBase64Encoded`): the kit
 * decodes it, on every runtime.
 * @group Adapter kit
 */
export interface Base64Body {
  base64: string;
}

/**
 * What an adapter hands over when a parser consumed the body first: who did, and the fix in
 * that framework's own words. Answered 500 `Server misconfigured` with one log line.
 * @group Adapter kit
 */
export interface AlreadyParsed {
  alreadyParsed: string;
  fix: string;
}

/**
 * A request as an adapter sees it. The body is a function so that it is only read once the
 * method, size and token have passed.
 * @group Adapter kit
 */
export interface AdapterRequest {
  method: string | undefined;
  headers: HeadersInput;
  body(): RequestBody | Promise<RequestBody>;
  /**
   * For a host whose body events fire outside the async context the request arrived in (a
   * Node stream's `'data'` and `'end'`): captures that context, so the dedup store, the
   * handlers and the answer run in it, and see the host's `AsyncLocalStorage` stores and
   * active OpenTelemetry span. Called at most once per request, in the turn the body is
   * handed over, and only when the kit reads the body from such events. Omit it where the
   * body arrives as bytes or through promises, which keep the context themselves.
   */
  captureContext?: () => ContextRunner;
}
