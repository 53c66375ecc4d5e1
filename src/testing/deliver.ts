import { httpUrl } from './http-url.js';
import { signDelivery } from './sign-delivery.js';

/** Options of {@link deliver}. */
export interface DeliverOptions {
  /** The endpoint's token: sent as the Bearer credential and used as the HMAC key. */
  token: string;
  /** The envelope (serialised with `JSON.stringify`), or the exact raw body. */
  payload: object | string;
  /** `X-Service-Delivery-Id`, the same on every attempt. Default: a random UUID. */
  deliveryId?: string;
  /** Flip one byte of the body after signing: the endpoint must answer 403 Invalid signature. */
  tamper?: boolean;
  /** Sign and authenticate with another token: the endpoint must answer 401 Invalid token. */
  wrongToken?: boolean;
  /** Back-date the timestamp by this many seconds (still correctly signed): 300 or more must get 403 Request expired. */
  staleBy?: number;
  /** Multiplies the retry delays and the 10 s timeout, e.g. 0.01 in tests. Default 1: the service's schedule. */
  timeScale?: number;
  /** How many attempts at most, 1 to 4. Default 4, like the service before its scheduler takes over. */
  maxAttempts?: number;
  /** The fetch to send with. Default `globalThis.fetch`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Called after each attempt, as it happens. */
  onAttempt?: (attempt: DeliveryAttempt) => void;
}

/** One HTTP attempt of a delivery. */
export interface DeliveryAttempt {
  /** 1 for the first attempt. */
  number: number;
  /** The HTTP status, or null when no answer came (unreachable, timeout). */
  status: number | null;
  /** The answer's body: parsed JSON, or the text when it is not JSON; null without an answer. */
  body: unknown;
  /** Why no answer came, naming the probable fix; null when there was an answer. */
  error: string | null;
  /** How long the attempt took, in milliseconds. */
  elapsedMs: number;
  /** When the attempt started, in milliseconds after the first one started. */
  startedAtMs: number;
  /** The `X-Service-Timestamp` this attempt sent (fresh on every attempt). */
  timestamp: string;
  /** Milliseconds until the next attempt, or null when this was the last. */
  retryInMs: number | null;
}

/** What {@link deliver} saw: every attempt and how the delivery ended. */
export interface DeliveryResult {
  /** `delivered` on a 2xx; `refused` on 401 or 403 (never retried); `gave-up` after the last attempt failed. */
  outcome: 'delivered' | 'refused' | 'gave-up';
  deliveryId: string;
  attempts: DeliveryAttempt[];
  /** The `published_url` of the successful answer, as the service would store it. */
  publishedUrl?: string;
  /** How it ended, in the four facts a test asserts on. */
  summary: DeliverySummary;
}

/**
 * The end of a delivery at a glance.
 *
 * @example
 * ```ts
 * expect((await deliver(url, options)).summary).toEqual({ ok: true, duplicate: false, status: 200, publishedUrl: null });
 * ```
 */
export interface DeliverySummary {
  /** True when the last attempt got a 2xx. */
  ok: boolean;
  /** True when the endpoint answered `"duplicate": true`: it had already handled this delivery id. */
  duplicate: boolean;
  /** The last attempt's HTTP status, or null when no answer came. */
  status: number | null;
  /** The `published_url` of a successful answer, or null. */
  publishedUrl: string | null;
}

/** The service's delays before the 2nd, 3rd and 4th attempt, after the previous one. */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 5_000, 10_000];
/** The service waits this long for an answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

const encoder = new TextEncoder();

/**
 * Sends a delivery the way the service does: a fresh timestamp and signature on every
 * attempt under the same delivery id, a 10 s timeout, retries 2, 5 and 10 s after the
 * previous attempt, stopping at any 2xx and never retrying 401 or 403. Options send a
 * tampered body, a wrong token or a stale timestamp, to prove your endpoint refuses them.
 *
 * @example
 * ```ts
 * const result = await deliver('http://127.0.0.1:3000/webhook', { token: 'test-token', payload: articleSyncPayload(), timeScale: 0.01 });
 * expect(result.outcome).toBe('delivered');
 * expect(result.publishedUrl).toBe('https://blog.example.com/ten-seo-tips');
 * ```
 */
export async function deliver(url: string, options: DeliverOptions): Promise<DeliveryResult> {
  const target = checkedUrl(url);
  const { token, payload } = options;
  if (typeof token !== 'string' || token === '')
    throw new TypeError("deliver: token must be a non-empty string (the endpoint's WEBHOOK_TOKEN).");
  const scale = options.timeScale ?? 1;
  if (!(scale > 0)) throw new RangeError(`deliver: timeScale must be a positive number, got ${String(scale)}.`);
  const maxAttempts = options.maxAttempts ?? RETRY_DELAYS_MS.length + 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > RETRY_DELAYS_MS.length + 1) {
    throw new RangeError(
      `deliver: maxAttempts must be 1, 2, 3 or 4 (the service's quick attempts), got ${String(maxAttempts)}.`,
    );
  }
  const send = options.fetch ?? globalThis.fetch;
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const deliveryId = options.deliveryId ?? globalThis.crypto.randomUUID();
  const attempts: DeliveryAttempt[] = [];
  const firstStart = Date.now();
  for (let number = 1; ; number++) {
    const last = number === maxAttempts;
    const started = Date.now();
    const timestamp = String(Math.floor(started / 1000) - (options.staleBy ?? 0));
    const init = requestInit(options, body, timestamp, deliveryId, ATTEMPT_TIMEOUT_MS * scale);
    const answer = await attempt(send, target, init, ATTEMPT_TIMEOUT_MS * scale);
    const outcome = outcomeOf(answer.status, last);
    const retryInMs = outcome === undefined ? RETRY_DELAYS_MS[number - 1]! * scale : null;
    const record: DeliveryAttempt = {
      number,
      ...answer,
      elapsedMs: Date.now() - started,
      startedAtMs: started - firstStart,
      timestamp,
      retryInMs,
    };
    attempts.push(record);
    options.onAttempt?.(record);
    if (outcome !== undefined) return result(outcome, deliveryId, attempts);
    await new Promise((resolve) => setTimeout(resolve, retryInMs!));
  }
}

function checkedUrl(url: string): string {
  const parsed = httpUrl(url);
  if (!parsed) {
    throw new TypeError(
      `deliver: "${url}" is not an http(s) URL; pass the endpoint's full address, e.g. http://127.0.0.1:3000/webhook`,
    );
  }
  return parsed.href;
}

function requestInit(
  options: DeliverOptions,
  body: string,
  timestamp: string,
  deliveryId: string,
  timeoutMs: number,
): RequestInit {
  const token = options.wrongToken ? `wrong-${globalThis.crypto.randomUUID()}` : options.token;
  // signDelivery reads X-Service-Event from the raw JSON it signs.
  const { headers } = signDelivery({ token, payload: body, timestamp, deliveryId });
  return {
    method: 'POST',
    headers,
    body: options.tamper ? tampered(body) : body,
    signal: AbortSignal.timeout(timeoutMs),
  };
}

/** The body with one ASCII character changed, so it stays valid UTF-8 and only the signature breaks. */
function tampered(body: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(encoder.encode(body));
  const at = Math.max(bytes.findIndex(isAlphanumeric), 0);
  if (bytes.length > 0) bytes[at] = bytes[at]! ^ 0x01;
  return bytes;
}

const isAlphanumeric = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a);

type Answer = Pick<DeliveryAttempt, 'status' | 'body' | 'error'>;

async function attempt(
  send: NonNullable<DeliverOptions['fetch']>,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Answer> {
  try {
    const response = await send(url, init);
    // The timeout covers the body too, as the service's does.
    const text = await response.text();
    return { status: response.status, body: parsedBody(text), error: null };
  } catch (error) {
    return { status: null, body: null, error: describeFailure(error, url, timeoutMs) };
  }
}

function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Names what went wrong and what to check, from fetch's error and its cause's code. */
export function describeFailure(error: unknown, url: string, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return `no answer within ${timeoutMs} ms; the service counts that as a failure, so answer faster (do slow work after answering)`;
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: string } | undefined)?.code;
  if (code === 'ECONNREFUSED') return `nothing is listening at ${url}; is your server running? (ECONNREFUSED)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `the host of ${url} does not resolve (${code}); check the URL`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return `the connection to ${url} was closed before an answer (${code}); did the server crash?`;
  if (cause?.message === 'bad port')
    return `fetch refuses to connect to the port of ${url} (a blocked port); run your server on another port`;
  const detail = cause?.message ?? (error as Error | undefined)?.message ?? String(error);
  return `the request to ${url} failed: ${detail}${code ? ` (${code})` : ''}`;
}

function outcomeOf(status: number | null, last: boolean): DeliveryResult['outcome'] | undefined {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  if (status === 401 || status === 403) return 'refused';
  return last ? 'gave-up' : undefined;
}

function result(outcome: DeliveryResult['outcome'], deliveryId: string, attempts: DeliveryAttempt[]): DeliveryResult {
  const last = attempts[attempts.length - 1]!;
  const answer = last.body as { published_url?: unknown; duplicate?: unknown } | null;
  const ok = outcome === 'delivered';
  const publishedUrl = ok && typeof answer?.published_url === 'string' ? answer.published_url : null;
  const summary = { ok, duplicate: ok && answer?.duplicate === true, status: last.status, publishedUrl };
  return { outcome, deliveryId, attempts, ...(publishedUrl === null ? {} : { publishedUrl }), summary };
}
