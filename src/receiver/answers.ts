import type { StoredResponse } from '../dedup/store.js';
import type { WebhookError } from '../errors/webhook-error.js';

/** The body of an answer to the service. */
export type AnswerBody = (StoredResponse & { duplicate?: true }) | { error: string };

/**
 * What to answer the service: an HTTP status and a JSON body. `handle()` always resolves to
 * one of these, whatever arrived.
 */
export interface HandleResult {
  status: number;
  body: AnswerBody;
}

const OK: StoredResponse = Object.freeze({ ok: true });

/** The success body; shared when there is no URL, so a million remembered ids share one object. */
export function okResponse(publishedUrl: string | undefined): StoredResponse {
  return publishedUrl === undefined ? OK : { ok: true, published_url: publishedUrl };
}

export function errorAnswer(error: WebhookError): HandleResult {
  return { status: error.status, body: { error: error.message } };
}
