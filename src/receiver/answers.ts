import type { StoredAnswer } from '../dedup/store.js';
import type { WebhookError, WebhookErrorCode } from '../errors/webhook-error.js';

/** The body of an answer to the service. */
export type AnswerBody = (StoredAnswer & { duplicate?: true; queued?: true }) | { error: string };

/**
 * What to answer the service: an HTTP status and a JSON body. `handle()` always resolves to
 * one of these, whatever arrived.
 */
export interface Answer {
  status: number;
  body: AnswerBody;
  /** Extra response headers the core decided, e.g. `retry-after` during a rotation window. */
  headers?: Readonly<Record<string, string>>;
}

/** Seconds the service is asked to wait before retrying a request kept during a rotation. */
const ROTATING_RETRY_AFTER = { 'retry-after': '60' } as const;

// The code behind each error answer, for the ledger: answers carry no code (they are what the
// service sees), and a field on them would change every answer users compare in their tests.
const codes = new WeakMap<Answer, WebhookErrorCode>();

/** The answer to a refused or failed delivery: its status and public text, never its reason. */
export function errorAnswer(error: WebhookError): Answer {
  const answer: Answer = { status: error.status, body: { error: error.message } };
  if (error.code === 'token_rotating') answer.headers = ROTATING_RETRY_AFTER;
  codes.set(answer, error.code);
  return answer;
}

/**
 * What an answer was, in one word: `ok`, `duplicate`, `stale`, `queued`, or the error code of
 * an answer {@link errorAnswer} made (`internal_error` for an error answer made elsewhere).
 */
export function answerCode(answer: Answer): string {
  const code = codes.get(answer);
  if (code !== undefined) return code;
  const body = answer.body as { duplicate?: true; stale?: true; queued?: true; error?: string };
  if (answer.status >= 300 || typeof body?.error === 'string') return 'internal_error';
  if (body.duplicate) return 'duplicate';
  if (body.stale) return 'stale';
  return body.queued ? 'queued' : 'ok';
}
