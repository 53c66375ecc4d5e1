import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import type { WebhookHandlers } from 'webhook-cms-receiver';
import { deepJsonArb, textArb } from './arbitraries.js';

/** The receivers in these properties refuse bodies over this, so oversized ones stay cheap to make. */
export const MAX_BODY_BYTES = 4096;

const HEADER_NAMES = [
  'authorization',
  'x-service-timestamp',
  'x-service-signature',
  'x-service-delivery-id',
  'x-service-event',
  'content-length',
  'get',
];

const nameArb = fc.oneof(
  fc
    .tuple(fc.constantFrom(...HEADER_NAMES), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
    .map(([name, mask]) => Array.from(name, (char, i) => (mask[i] ? char.toUpperCase() : char)).join('')),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
  fc.string({ maxLength: 12 }),
);

const headerValueArb = fc.oneof(
  fc.constantFrom('Bearer secret-token', 'bearer  secret-token', '1790000000', `sha256=${'0'.repeat(64)}`, ''),
  fc.string({ maxLength: 80 }),
  fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.anything()), { maxLength: 4 }),
  fc.anything({ maxDepth: 1 }),
);

const safeValueArb = fc
  .string({ unit: fc.constantFrom(...'abcXYZ019 =-_.,'), maxLength: 40 })
  .map((text) => text.trim() || 'x');

/** Header shapes of every kind a caller might pass, well-formed or not. */
export const anyHeadersArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, 0, 42, Number.NaN, -1, 'Bearer secret-token', true, Symbol('headers')),
  fc.anything(),
  fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))),
  fc.dictionary(nameArb, headerValueArb, { maxKeys: 8 }),
  fc
    .dictionary(fc.constantFrom(...HEADER_NAMES.slice(0, 6)), safeValueArb, { maxKeys: 6 })
    .map((record) => new Headers(record)),
  fc.constantFrom<unknown>(
    { get: 5, authorization: 'Bearer secret-token' },
    { get: () => 42 },
    { get: () => ['Bearer secret-token'] },
    { get: () => ({ toString: () => 'Bearer secret-token' }) },
    {
      get: () => {
        throw new Error('get failed');
      },
    },
    Object.create(null),
    new Map([['authorization', 'Bearer secret-token']]),
  ),
);

/** Bytes in every container: views over shared buffers included, as Node pools them. */
const bytesArb = fc.uint8Array({ maxLength: 600 });

/** Bodies of every type and size a caller might pass. */
export const anyBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.constantFrom(null, undefined, 0, -0, 1e308, Number.NaN, true, Symbol('body'), 10n, () => '{}'),
  textArb,
  fc.json(),
  deepJsonArb,
  bytesArb,
  bytesArb.map((bytes) => bytes.buffer),
  bytesArb.map((bytes) => new DataView(bytes.buffer, Math.min(1, bytes.length))),
  bytesArb.map((bytes) => Buffer.from(bytes)),
  bytesArb.map((bytes) => new Float64Array(bytes.buffer.slice(0, bytes.length - (bytes.length % 8)))),
  fc.integer({ min: MAX_BODY_BYTES + 1, max: MAX_BODY_BYTES * 3 }).map((size) => new Uint8Array(size)),
  fc.integer({ min: MAX_BODY_BYTES + 1, max: MAX_BODY_BYTES * 3 }).map((size) => 'x'.repeat(size)),
  fc.integer({ min: MAX_BODY_BYTES / 2, max: MAX_BODY_BYTES }).map((size) => '€'.repeat(size)),
  fc.dictionary(
    fc.constantFrom('event', 'timestamp', 'article', 'profile', '__proto__', 'constructor'),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

/** A whole input: mostly `{ headers, body }`, sometimes not even an object. */
export const anyInputArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ headers: anyHeadersArb, body: anyBodyArb }) },
  { weight: 1, arbitrary: fc.record({ headers: anyHeadersArb, body: anyBodyArb }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.anything() },
);

/** What a user's handler may do; `threw` records whether any of them threw. */
type Behaviour = 'acknowledge' | 'url' | 'odd-return' | 'throw' | 'reject' | 'not-a-function';

const behaviourArb = fc.tuple(
  fc.constantFrom<Behaviour>('acknowledge', 'url', 'odd-return', 'throw', 'reject', 'not-a-function'),
  fc.anything({ maxDepth: 1 }),
);

export const handlerPlanArb = fc.record(
  { 'article.sync': behaviourArb, 'article.trash': behaviourArb, test: behaviourArb, unknown: behaviourArb },
  { requiredKeys: [] },
);

export type HandlerPlan = Partial<Record<keyof WebhookHandlers, [Behaviour, unknown]>>;

/** Builds handlers that follow the plan and note when one of them threw. */
export function handlersFor(plan: HandlerPlan, threw: { value: boolean }): WebhookHandlers {
  const handlers: Record<string, unknown> = {};
  for (const [name, [behaviour, value]] of Object.entries(plan) as [string, [Behaviour, unknown]][]) {
    handlers[name] = {
      acknowledge: () => undefined,
      url: () => ({ publishedUrl: value }),
      'odd-return': () => value,
      throw: () => {
        threw.value = true;
        throw value;
      },
      reject: async () => {
        threw.value = true;
        throw value;
      },
      'not-a-function': value,
    }[behaviour];
  }
  return handlers as WebhookHandlers;
}

/** Statuses `handle()` may answer, by the contract. */
export const CONTRACT_STATUSES = new Set([200, 400, 401, 403, 409, 413, 500, 503]);
