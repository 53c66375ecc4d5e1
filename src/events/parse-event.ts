import { WebhookError } from '../errors/webhook-error.js';
import {
  envelopeOwnTest,
  isPlainObject,
  profileMismatch,
  syncArticleMismatch,
  trashArticleMismatch,
} from './envelope-schema.js';
import type { Envelope, WebhookEvent } from './types.js';

/** Who sent it and under which token: what the event needs besides the body. */
export interface DeliveryContext {
  deliveryId: string | null;
  tokenIndex: number;
}

/**
 * Checks 6 and 7 of the contract: the parsed body is an envelope that fits its event, and
 * article events carry a delivery id.
 */
export function parseEvent(json: unknown, context: DeliveryContext): WebhookEvent {
  const envelope = checkEnvelope(json);
  const type = envelope.event;
  // Compared, not looked up, and each event then named by the constant: the parsed name is a
  // new string per delivery, and a keyed lookup with it (`Object.hasOwn` on a table of checks,
  // `handlers[event.type]` in the receiver and in users' code) has V8 hash it and search its
  // string table, some 600 instructions each. Nothing on Object.prototype answers a comparison.
  if (type === 'article.sync') return checkedArticleEvent('article.sync', syncArticleMismatch, envelope, context);
  if (type === 'article.trash') return checkedArticleEvent('article.trash', trashArticleMismatch, envelope, context);
  if (type === 'test') {
    // Absent counts as null: the service documents both as null and nothing depends on them.
    if (envelope.article != null || envelope.profile != null)
      throw invalid('test events carry null article and profile');
    checkDeliveryId(context.deliveryId);
    return plainEvent('test', 'test', envelope, context) as WebhookEvent;
  }
  // Only event and timestamp are checked: a later event's payload is not documented yet, and
  // refusing it would make the service retry a delivery this version cannot understand anyway.
  checkDeliveryId(context.deliveryId);
  return plainEvent('unknown', type, envelope, context) as WebhookEvent;
}

/** An article event whose article, profile and delivery id passed their checks. */
function checkedArticleEvent(
  type: 'article.sync' | 'article.trash',
  articleMismatch: (article: unknown) => string | undefined,
  envelope: Envelope,
  context: DeliveryContext,
): WebhookEvent {
  const wrong = articleMismatch(envelope.article) ?? profileMismatch(envelope.profile);
  if (wrong) throw invalid(`${wrong} is missing or has the wrong type for ${type}`);
  if (context.deliveryId === null) {
    throw new WebhookError('missing_delivery_id', `${type} needs X-Service-Delivery-Id to be deduplicated`);
  }
  checkDeliveryId(context.deliveryId);
  return articleEvent(type, envelope, context) as WebhookEvent;
}

/**
 * The rest of check 7: the service sends one UUID, so a comma means the header came more than
 * once, joined `a, b` by the host's header API (Fetch `Headers` and Node alike), and no copy
 * can be trusted as the key to deduplicate on.
 */
function checkDeliveryId(deliveryId: string | null): void {
  if (deliveryId?.includes(',')) {
    throw new WebhookError(
      'invalid_delivery_id',
      'X-Service-Delivery-Id arrived more than once (or holds a comma); the service sends exactly one UUID',
    );
  }
}

function checkEnvelope(json: unknown): Envelope {
  if (!isPlainObject(json)) return fail('the body is not a JSON object');
  const own = envelopeOwnTest(json);
  if (!own(json, 'event') || typeof json.event !== 'string') return fail('event is missing or not a string');
  if (!own(json, 'timestamp') || !Number.isSafeInteger(json.timestamp)) {
    return fail('timestamp is missing or not an integer');
  }
  return json as Envelope;
}

// Object literals, not spreads: this runs for every delivery.
function articleEvent(type: string, envelope: Envelope, context: DeliveryContext) {
  const { deliveryId, tokenIndex } = context;
  return {
    type,
    name: type,
    deliveryId,
    timestamp: envelope.timestamp,
    payload: envelope,
    tokenIndex,
    article: envelope.article,
    profile: envelope.profile,
  };
}

function plainEvent(type: string, name: string, envelope: Envelope, context: DeliveryContext) {
  return {
    type,
    name,
    deliveryId: context.deliveryId,
    timestamp: envelope.timestamp,
    payload: envelope,
    tokenIndex: context.tokenIndex,
  };
}

function invalid(reason: string): WebhookError {
  return new WebhookError('invalid_payload', reason);
}

function fail(reason: string): never {
  throw invalid(reason);
}
