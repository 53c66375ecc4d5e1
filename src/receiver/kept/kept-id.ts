import type { MaybePromise } from '../../internal/maybe.js';
import { andThen } from '../../internal/maybe.js';
import { tokenSha256Hex } from '../../crypto/token-sha256.js';
import { randomId } from './kept-encoding.js';

/**
 * What a kept request's id tells: when it arrived and which delivery it is. Stores list ids
 * and token hashes only, so the receiver orders and groups what is kept from the ids alone,
 * with no body read and no change to any store.
 */
export interface KeptIdParts {
  /** When it arrived, epoch ms; 0 for an id written before ids carried it (the oldest). */
  receivedAt: number;
  /** Which delivery (a hash of its id): a retry of it replaces the copy kept before; undefined for an old id. */
  delivery: string | undefined;
}

const VERSION = 'k1';
// Fixed width, so ids sort by arrival as text too (a store's own listing order is no promise).
const TIME_DIGITS = 11;
const TIME = /^[0-9a-z]{11}$/;

/** The delivery part of an id: a short hash of the delivery id, whatever characters it holds. */
export function deliveryKey(deliveryId: string): MaybePromise<string> {
  return andThen(tokenSha256Hex(deliveryId), (hex) => hex.slice(0, 16));
}

/** A new id: `k1.<received at, base 36>.<delivery key>.<random>`. */
export function keptId(receivedAt: number, delivery: string): string {
  return `${VERSION}.${Math.max(0, Math.floor(receivedAt)).toString(36).padStart(TIME_DIGITS, '0')}.${delivery}.${randomId()}`;
}

/** The parts of an id made by {@link keptId}; an id of another shape is the oldest, of no known delivery. */
export function keptIdParts(id: string): KeptIdParts {
  const [version, time, delivery, random] = id.split('.');
  const receivedAt = time !== undefined && TIME.test(time) ? Number.parseInt(time, 36) : Number.NaN;
  if (version !== VERSION || random === undefined || !Number.isFinite(receivedAt)) {
    return { receivedAt: 0, delivery: undefined };
  }
  return { receivedAt, delivery };
}
