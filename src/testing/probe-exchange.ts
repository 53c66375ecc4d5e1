import { describeFailure } from './deliver.js';
import type { SignedDelivery } from './sign-delivery.js';

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
  try {
    const response = await send(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    // The limit covers reading the answer too, as the service's does.
    const text = await response.text();
    return {
      row,
      status: response.status,
      body: parsed(text),
      allow: response.headers.get('allow'),
      location: response.headers.get('location'),
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
      elapsedMs: Math.round(performance.now() - started),
      error: describeFailure(error, url, timeoutMs),
      timedOut: name === 'TimeoutError' || name === 'AbortError',
    };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
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
  const hint =
    answer.status === 404 && method === 'POST'
      ? `; is the path right? tried POST ${url}`
      : answer.status >= 300 && answer.status < 400
        ? `; a redirect to ${answer.location ?? '(no Location)'}: give the service the final URL`
        : '';
  return `${answer.status}${shown} in ${answer.elapsedMs} ms${hint}`;
}

const short = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The `error` text of a JSON answer, if any. */
export const errorOf = (answer: Exchange): string | undefined => {
  const error = (answer.body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : undefined;
};
