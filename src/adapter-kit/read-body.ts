import { digitsValue } from '../input/headers.js';
import { type ChunkListener, Chunks } from './chunks.js';
import type { ContextRunner } from './context-runner.js';

/**
 * A body the adapter has not read yet: a Node request (async iterable) or a Fetch stream.
 * @group Adapter kit
 */
export type BodyStream = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/**
 * A Fetch `Request` (or anything with its body methods), unread.
 * @group Adapter kit
 */
export interface FetchBody {
  arrayBuffer(): Promise<ArrayBuffer>;
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed?: boolean;
  readonly headers?: { get(name: string): string | null };
}

/**
 * Reads a Fetch request's body. With a `Content-Length` already checked against the limit,
 * HTTP framing bounds the body, so `arrayBuffer()` reads it in one step: on Node servers
 * that bridge to Fetch (such as `@hono/node-server`) it skips building a web stream over
 * the socket, which costs more than the rest of a small delivery. Without one, the stream
 * is read chunk by chunk and abandoned past the limit.
 */
export async function readFetchBody(request: FetchBody, limit: number): Promise<Uint8Array | undefined> {
  const contentLength = request.headers?.get('content-length');
  const declared = contentLength == null ? undefined : digitsValue(contentLength);
  if (declared !== undefined && declared <= limit) return new Uint8Array(await request.arrayBuffer());
  return request.body ? readLimited(request.body, limit) : new Uint8Array(0);
}

/**
 * True for a Fetch `Request` or look-alike; a Node request or a bare stream has no `arrayBuffer`.
 *
 * @example
 * ```ts
 * if (isFetchBody(event.req)) return { method: event.req.method, headers: event.req.headers, body: () => event.req };
 * ```
 * @group Adapter kit
 */
export function isFetchBody(body: unknown): body is FetchBody {
  return typeof (body as Partial<FetchBody> | null)?.arrayBuffer === 'function';
}

/**
 * A Fetch `Request` or look-alike with its method and readable headers, as a host hands it over.
 * @group Adapter kit
 */
export interface FetchRequest extends FetchBody {
  readonly method: string;
  readonly headers: NonNullable<FetchBody['headers']>;
}

/**
 * True for a Fetch `Request` or look-alike, for an adapter that must tell one from a host's
 * other objects (h3 2's `event.req`, h3 1's `event.web.request`).
 *
 * @example
 * ```ts
 * if (isFetchRequest(event.req)) return { method: event.req.method, headers: event.req.headers, body: () => event.req };
 * ```
 * @group Adapter kit
 */
export function isFetchRequest(value: unknown): value is FetchRequest {
  return isFetchBody(value) && typeof value.headers?.get === 'function';
}

/** The event side of a Node `Readable` such as `IncomingMessage`, described without Node types. */
interface EventStream {
  on(event: string, listener: (value: never) => void): unknown;
  removeListener(event: string, listener: (value: never) => void): unknown;
  resume?(): unknown;
  readableEnded?: boolean;
  destroyed?: boolean;
}

export type { ChunkListener } from './chunks.js';

/** Options of {@link readStream}: the limit, who sees each chunk, and where the outcome goes. */
export interface ReadStreamOptions {
  limit: number;
  /** Sees every chunk kept, as it arrives; a listener that throws fails the read. */
  onChunk?: ChunkListener;
  /** The whole body, or undefined once it passed `limit`. Called at most once, and never with `fail`. */
  done(body: Uint8Array | undefined): void;
  /** Why the read failed. Called at most once, and never with `done`. */
  fail(error: unknown): void;
  /**
   * Captures the caller's async context for `done` and `fail`, which a Node stream would
   * otherwise call in its own (see `AdapterRequest.captureContext`).
   */
  captureContext?: (() => ContextRunner) | undefined;
}

/**
 * Reads a stream into one buffer, stopping as soon as it passes `limit`: an oversized body
 * costs at most `limit` bytes of memory. A Node stream's outcome is handed over inside its
 * last event, with no promise turn, so an answer can be written in the same turn.
 */
export function readStream(stream: BodyStream, options: ReadStreamOptions): void {
  const collected = new Chunks(options.limit, options.onChunk);
  if (isEventStream(stream) && !stream.readableEnded && !stream.destroyed)
    return void readEvents(stream, collected, options);
  readIterable(stream, collected).then(options.done, options.fail);
}

/** {@link readStream} as a promise: the body, or undefined when it was too large. */
export function readLimited(
  stream: BodyStream,
  limit: number,
  onChunk?: ChunkListener,
): Promise<Uint8Array | undefined> {
  return new Promise((done, fail) => readStream(stream, { limit, onChunk, done, fail }));
}

/**
 * A Node stream through its events: the async iterator does the same job with several
 * promises per chunk and a listener set-up that cost more than a small body's HMAC.
 * Past the limit it stops listening but leaves the stream alive, so the 413 answer can
 * still be written; what is left flows away unkept (Node's server drains it too).
 */
function readEvents(stream: EventStream, collected: Chunks, outcome: ReadStreamOptions): void {
  // Captured here, in the caller's turn: the events below fire in the stream's context.
  const resume = outcome.captureContext?.() ?? runHere;
  // `on` and `removeListener` read once each: adding a listener changes an Express request's
  // hidden class, and every read after that looks along its whole prototype chain again.
  const each = (method: EventStream['on']): void => {
    method.call(stream, 'data', onData);
    method.call(stream, 'end', onEnd);
    method.call(stream, 'error', onError);
    method.call(stream, 'close', onClose);
  };
  const { removeListener } = stream;
  const settle = (): void => each(removeListener);
  const onData = (chunk: Uint8Array | string): void => {
    let kept: boolean;
    try {
      kept = collected.add(chunk);
    } catch (error) {
      // A throw here would escape into the stream's emit, where nothing catches it.
      onError(error);
      return;
    }
    if (kept) return;
    settle();
    resume(outcome.done, undefined);
  };
  const onEnd = (): void => {
    settle();
    resume(outcome.done, collected.join());
  };
  const onError = (error: unknown): void => {
    settle();
    resume(outcome.fail, error);
  };
  // 'close' before 'end' is a client that went away mid-body.
  const onClose = (): void => onError(new Error('the request closed before its body ended'));
  each(stream.on);
  // A stream someone paused stays paused under a 'data' listener; the iterator would read it.
  stream.resume?.();
}

/** The continuation in the current context, for a reader given no capture. */
const runHere: ContextRunner = (continuation, value) => continuation(value);

async function readIterable(stream: BodyStream, collected: Chunks): Promise<Uint8Array | undefined> {
  if (!(Symbol.asyncIterator in stream)) return readWebStream(stream as ReadableStream<Uint8Array>, collected);
  for await (const chunk of stream as AsyncIterable<Uint8Array | string>) {
    if (!collected.add(chunk)) return undefined;
  }
  return collected.join();
}

/**
 * A Fetch body through its reader. Past the limit the stream is not cancelled at once: on
 * Node hosts cancelling destroys the request, and the connection with it, before a sender
 * that writes its whole body first has read the 413. The rest is read into nothing in the
 * background, up to three more limits or 10 s (the body was admitted, so its sender holds the
 * token), then cancelled.
 */
async function readWebStream(stream: ReadableStream<Uint8Array>, collected: Chunks): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (!collected.add(next.value)) {
        void discardRest(reader, 3 * collected.limit);
        return undefined;
      }
    }
  } catch (error) {
    reader.releaseLock();
    throw error;
  }
  reader.releaseLock();
  return collected.join();
}

const DISCARD_MS = 10_000;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), DISCARD_MS) as unknown as {
    unref?: () => void;
  };
  timer.unref?.();
  let read = 0;
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      read += next.value.byteLength;
      if (read > maxBytes) break;
    }
    await reader.cancel();
  } catch {
    // The client went away or the host cancelled: nothing is left to discard.
  } finally {
    clearTimeout(timer as unknown as number);
  }
}

/** True for a Node stream (or anything with its events), read through its events. */
export function isEventStream(stream: object): stream is BodyStream & EventStream {
  const candidate = stream as Partial<EventStream>;
  return typeof candidate.on === 'function' && typeof candidate.removeListener === 'function';
}
