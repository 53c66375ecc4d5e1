import { describeFailure } from '../sender/deliver-attempt.js';
import { redirectReason } from '../sender/deliver-summary.js';
import { readAnswer } from '../sender/read-answer.js';
import type { SignedDelivery } from '../sender/sign-delivery.js';

/** One request the probe made and what came back. */
export interface Exchange {
  /** The row it belongs to, to name the slowest answer. */
  row: string;
  status: number | null;
  /** The answer parsed as JSON, else its text; null without an answer. */
  body: unknown;
  /** The `Allow` header of the answer, for the non-POST row. */
  allow: string | null;
  /** The `Location` of a redirect. */
  location: string | null;
  /** The answer's `Date` header: the endpoint's clock, to tell a clock that is off from a window check that is missing. */
  date: string | null;
  /** When the request was sent, in milliseconds since the epoch (this machine's clock). */
  sentAt: number;
  /** True when the answer went on past 64 KiB: the rest was cancelled, not read. */
  bodyTruncated: boolean;
  elapsedMs: number;
  /** Why no answer came; null when there was one. */
  error: string | null;
  timedOut: boolean;
}

/** A fetch like the global one. */
export type ProbeFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Sends one request and records the answer; never throws. Redirects are reported, not followed. */
export async function exchange(
  send: ProbeFetch,
  url: string,
  row: string,
  request: SignedDelivery | { method: 'GET' },
  timeoutMs: number,
): Promise<Exchange> {
  const init: RequestInit =
    'method' in request ? { method: request.method } : { method: 'POST', headers: request.headers, body: request.body };
  const started = performance.now();
  const sentAt = Date.now();
  try {
    const response = await send(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    // The limit covers reading the answer too, as the service's does; the cap keeps an endless answer finite.
    const { body, truncated } = await readAnswer(response);
    return {
      row,
      status: response.status,
      body,
      allow: response.headers.get('allow'),
      location: response.headers.get('location'),
      date: response.headers.get('date'),
      sentAt,
      bodyTruncated: truncated,
      elapsedMs: Math.round(performance.now() - started),
      error: null,
      timedOut: false,
    };
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    return {
      row,
      status: null,
      body: null,
      allow: null,
      location: null,
      date: null,
      sentAt,
      bodyTruncated: false,
      elapsedMs: Math.round(performance.now() - started),
      error: describeFailure(error, url, timeoutMs),
      timedOut: name === 'TimeoutError' || name === 'AbortError',
    };
  }
}

/**
 * The answer in a few words for a row's reason: the status and a short JSON body. An HTML
 * page or long text is described, not printed.
 */
export function answerText(answer: Exchange, url: string, method: 'POST' | 'GET' = 'POST'): string {
  if (answer.status === null) return `no answer: ${answer.error}`;
  const { body } = answer;
  let shown = '';
  if (typeof body === 'string') {
    const html = /^\s*</.test(body);
    shown = body === '' ? '' : html ? ` (an HTML page, ${body.length} characters)` : ` ${short(body)}`;
  } else shown = ` ${short(JSON.stringify(body))}`;
  if (answer.bodyTruncated) shown += ' (only the first 64 KiB read)';
  const hint =
    answer.status === 404 && method === 'POST'
      ? `; is the path right? tried POST ${url}`
      : answer.status >= 300 && answer.status < 400
        ? `; ${redirectReason({ status: answer.status, location: answer.location ?? undefined })}`
        : '';
  return `${answer.status}${shown} in ${answer.elapsedMs} ms${hint}`;
}

const short = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The `error` text of a JSON answer, if any. */
export const errorOf = (answer: Exchange): string | undefined => {
  const error = (answer.body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : undefined;
};
