import type { DeliverOptions, DeliveryAttempt } from './deliver-types.js';
import { readAnswer } from './read-answer.js';
import { signDelivery } from './sign-delivery.js';

const encoder = new TextEncoder();

/** What one attempt got back: the fields of {@link DeliveryAttempt} that come from the answer. */
export type Answer = Pick<DeliveryAttempt, 'status' | 'body' | 'error' | 'bodyTruncated' | 'location'>;

/** The request of one attempt: freshly signed, tampered or wrongly authenticated as asked. */
export function requestInit(
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
    // The service follows no redirect: a 3xx is its answer, reported with its Location.
    redirect: 'manual',
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

/** Sends one attempt and reads at most 64 KiB of its answer; never throws. */
export async function attempt(
  send: NonNullable<DeliverOptions['fetch']>,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Answer> {
  try {
    const response = await send(url, init);
    // The timeout covers the body too, as the service's does; the cap keeps an endless answer finite.
    const { body, truncated } = await readAnswer(response);
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    return {
      status: response.status,
      body,
      error: null,
      ...(truncated ? { bodyTruncated: true as const } : {}),
      ...(location === null ? {} : { location }),
    };
  } catch (error) {
    return { status: null, body: null, error: describeFailure(error, url, timeoutMs) };
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
