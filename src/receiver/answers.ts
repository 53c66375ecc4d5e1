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
}

/** The answer to a refused or failed delivery: its status and public text, never its reason. */
export function errorAnswer(error: WebhookError): Answer {
  return { status: error.status, body: { error: error.message } };
}
