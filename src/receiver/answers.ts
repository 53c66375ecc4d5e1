import type { StoredAnswer } from '../dedup/store.js';
import type { WebhookError } from '../errors/webhook-error.js';

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

/** The answer to a refused or failed delivery: its status and public text, never its reason. */
export function errorAnswer(error: WebhookError): Answer {
  const answer: Answer = { status: error.status, body: { error: error.message } };
  if (error.code === 'token_rotating') answer.headers = ROTATING_RETRY_AFTER;
  return answer;
}
