import type { Envelope } from 'webhook-cms-receiver';
import { signDelivery, type SignedDelivery } from 'webhook-cms-receiver/testing';
import type { Answer } from '../helpers/http-client.js';

/** The token every adapter suite signs with. */
export const TOKEN = 'adapter-suite-token-0123456789';

/** Small enough to exceed quickly, large enough for the 2 MiB article. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Now in Unix seconds, as `X-Service-Timestamp` carries it.
 *
 * @example
 * ```ts
 * deliveryAt(payload, nowSeconds() - 301, 'stale');
 * ```
 */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * A delivery signed at an explicit timestamp with an explicit id, as the service's retries are.
 *
 * @example
 * ```ts
 * const retry = deliveryAt(payload, nowSeconds(), 'delivery-1');
 * ```
 */
export function deliveryAt(payload: Envelope, timestamp: number, deliveryId: string): SignedDelivery {
  return signDelivery({ token: TOKEN, payload, timestamp, deliveryId });
}

/**
 * The exact answers the contract prescribes, as {@link Answer}s.
 *
 * @example
 * ```ts
 * expect(await send(url, tampered)).toEqual(answers.error(403, 'Invalid signature'));
 * ```
 */
export const answers = {
  ok: (publishedUrl: string): Answer => ({
    status: 200,
    contentType: JSON_TYPE,
    allow: undefined,
    body: { ok: true, published_url: publishedUrl },
  }),
  duplicate: (publishedUrl: string): Answer => ({
    status: 200,
    contentType: JSON_TYPE,
    allow: undefined,
    body: { ok: true, published_url: publishedUrl, duplicate: true },
  }),
  error: (status: number, error: string): Answer => ({
    status,
    contentType: JSON_TYPE,
    allow: undefined,
    body: { error },
  }),
  methodNotAllowed: {
    status: 405,
    contentType: JSON_TYPE,
    allow: 'POST',
    body: { error: 'Method not allowed' },
  } as Answer,
};
