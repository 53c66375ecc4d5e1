import { type createReceiver, isWebhookError, type WebhookEvent } from 'webhook-cms-receiver';
import { startsWithBom } from './bytes.js';
import { type HeaderValues, single } from './headers.js';
import { type Finding, fail, pass, skip } from './result.js';
import { signature } from '../sender/sign-delivery.js';

/**
 * Checks 6 and 7, judged by the receiver itself on a copy re-signed with the configured token
 * and a fresh timestamp, so they report on the body even when an earlier check failed.
 */
export async function envelopeFindings(
  receiver: ReturnType<typeof createReceiver>,
  headers: HeaderValues,
  body: Uint8Array | undefined,
  token: string,
  nowMs: number,
): Promise<[Finding, Finding]> {
  if (!body)
    return [
      { check: skip('payload', 'the capture holds no body') },
      { check: skip('delivery id', 'the capture holds no body') },
    ];
  const timestamp = String(Math.floor(nowMs / 1000));
  const deliveryId = single(headers, 'x-service-delivery-id');
  const resigned = {
    authorization: `Bearer ${token}`,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${signature(token, timestamp, body)}`,
    ...(deliveryId === undefined ? {} : { 'x-service-delivery-id': deliveryId }),
  };
  let event: WebhookEvent;
  try {
    event = await receiver.verify({ headers: resigned, body });
  } catch (error) {
    if (!isWebhookError(error)) throw error;
    return envelopeFailure(error.code, error.reason, body);
  }
  const idDetail = event.deliveryId === null ? `not needed for ${event.name} events` : 'present';
  return [{ check: pass('payload', `a valid ${event.name} envelope`) }, { check: pass('delivery id', idDetail) }];
}

function envelopeFailure(code: string, reason: string, body: Uint8Array): [Finding, Finding] {
  if (code === 'missing_delivery_id') {
    return [
      { check: pass('payload', 'a valid envelope') },
      {
        check: fail('delivery id', reason),
        cause: {
          kind: 'delivery-id-missing',
          message: `No X-Service-Delivery-Id: ${reason}.`,
          fix: 'The service always sends it: check that no proxy drops X-Service-* headers. A hand-made request needs a UUID there (signDelivery and webhook-cms-receiver send add one).',
        },
      },
    ];
  }
  if (code !== 'invalid_payload') return [{ check: skip('payload', reason) }, { check: skip('delivery id', reason) }];
  const bom = startsWithBom(body) ? ' It starts with a UTF-8 byte-order mark, which JSON does not allow.' : '';
  return [
    {
      check: fail('payload', reason),
      cause: {
        kind: 'payload-invalid',
        message: `The body is not a valid envelope: ${reason}.${bom}`,
        fix: 'Send the envelope as the service does: a JSON object with event, timestamp, article and profile (the payload factories in webhook-cms-receiver/testing make them).',
      },
    },
    { check: skip('delivery id', 'not checked: the payload is invalid') },
  ];
}
