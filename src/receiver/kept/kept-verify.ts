import type { KeptRequest } from '../../dedup/kept-requests.js';
import type { WebhookEvent } from '../../events/types.js';
import { headerLookup } from '../../input/headers.js';
import type { VerifyConfig } from '../config.js';
import type { MatchedToken } from '../tokens/token-matcher.js';
import { type KeptInput, verifyDelivery } from '../verify-delivery.js';
import { fromBase64 } from './kept-encoding.js';

/**
 * A kept request verified with the token that matched its hash, its timestamp judged against
 * the time it arrived (not now): the checks it would have passed then. Throws the refusal.
 */
export async function verifyKept(
  config: VerifyConfig,
  request: KeptRequest,
  matched: MatchedToken,
): Promise<{ event: WebhookEvent; input: KeptInput }> {
  const input: KeptInput = {
    headers: { ...request.headers, authorization: `Bearer ${matched.key.token}` },
    body: fromBase64(request.body),
    receivedAt: request.receivedAt,
  };
  const admitted = { headers: headerLookup(input.headers), matched };
  const event = await verifyDelivery({ ...config, now: () => request.receivedAt }, input, admitted);
  return { event, input };
}
