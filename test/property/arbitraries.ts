import fc from 'fast-check';
import type { ArticleSyncEnvelope, ArticleTrashEnvelope, Envelope, TestEnvelope } from 'webhook-cms-receiver';

/** The receivers' clock in every property: a fixed instant, half a second into a second. */
export const NOW_SECONDS = 1_790_000_000;
export const nowMs = () => NOW_SECONDS * 1000 + 500;
export const TOLERANCE_SECONDS = 300;

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=';

/** Tokens as the service issues them: printable, no whitespace (HTTP trims it at the ends). */
export const tokenArb = fc.string({ unit: fc.constantFrom(...TOKEN_ALPHABET), minLength: 1, maxLength: 64 });

/** Rotation lists: one to three distinct tokens. */
export const tokenListArb = fc.uniqueArray(tokenArb, { minLength: 1, maxLength: 3 });

/** Text of every kind: graphemes, any code point, and lone UTF-16 surrogates (JSON escapes them). */
export const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 10 }),
);

const longTextArb = fc.oneof(
  { weight: 4, arbitrary: textArb },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 2000 }) },
);

const isoDateArb = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Keys that have tripped up parsers and merges elsewhere. */
const trickyKeyArb = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
);
const RESERVED = new Set(['event', 'timestamp', 'article', 'profile']);
const extraKeyArb = fc.oneof(textArb, trickyKeyArb).filter((key) => !RESERVED.has(key));

/** Unknown extra fields: the service may add them and the receiver must keep them. */
export const extrasArb = fc.dictionary(extraKeyArb, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

const timestampArb = fc.oneof(
  fc.integer({ min: NOW_SECONDS - 10_000, max: NOW_SECONDS + 10_000 }),
  fc.maxSafeInteger(),
  fc.integer(),
);

export const profileArb = fc.record({ id: textArb, domain: textArb });

export const syncArticleArb = fc.record({
  id: fc.uuid(),
  title: textArb,
  slug: textArb,
  status: fc.oneof(fc.constantFrom('draft', 'review', 'approved', 'published', 'archived'), textArb),
  content_markdown: longTextArb,
  content_html: longTextArb,
  meta_description: textArb,
  featured_image_url: fc.option(fc.webUrl(), { nil: null }),
  tags: fc.array(textArb, { maxLength: 5 }),
  scheduled_at: fc.option(isoDateArb, { nil: null }),
  published_at: fc.option(isoDateArb, { nil: null }),
});

/** Builds an object whose own keys may include `__proto__`, the way JSON.parse would. */
function withExtras<T extends object>(extras: Record<string, unknown>, fixed: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ ...extras, ...fixed })) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

export const syncEnvelopeArb: fc.Arbitrary<ArticleSyncEnvelope> = fc
  .tuple(timestampArb, syncArticleArb, profileArb, extrasArb)
  .map(([timestamp, article, profile, extras]) =>
    withExtras(extras, { event: 'article.sync' as const, timestamp, article, profile }),
  );

export const trashEnvelopeArb: fc.Arbitrary<ArticleTrashEnvelope> = fc
  .tuple(timestampArb, fc.record({ id: fc.uuid(), slug: textArb }), profileArb, extrasArb)
  .map(([timestamp, article, profile, extras]) =>
    withExtras(extras, { event: 'article.trash' as const, timestamp, article, profile }),
  );

export const testEnvelopeArb: fc.Arbitrary<TestEnvelope> = fc
  .tuple(timestampArb, extrasArb)
  .map(([timestamp, extras]) =>
    withExtras(extras, { event: 'test' as const, timestamp, article: null, profile: null }),
  );

const KNOWN = new Set(['article.sync', 'article.trash', 'test']);

/** Event names a later service version may send, with any payload shape. */
export const unknownEnvelopeArb: fc.Arbitrary<Envelope> = fc
  .tuple(
    fc
      .oneof(textArb, fc.constantFrom('job.completed', 'article.published', 'Article.Sync', 'TEST', ' test'))
      .filter((name) => !KNOWN.has(name)),
    timestampArb,
    fc.jsonValue({ maxDepth: 2 }),
    fc.jsonValue({ maxDepth: 2 }),
    extrasArb,
  )
  .map(([event, timestamp, article, profile, extras]) => withExtras(extras, { event, timestamp, article, profile }));

/** Any valid envelope, of every kind. */
export const envelopeArb: fc.Arbitrary<Envelope> = fc.oneof(
  syncEnvelopeArb as fc.Arbitrary<Envelope>,
  trashEnvelopeArb as fc.Arbitrary<Envelope>,
  testEnvelopeArb as fc.Arbitrary<Envelope>,
  unknownEnvelopeArb,
);

/** True for events that need a delivery id (contract check 7). */
export const needsDeliveryId = (envelope: Envelope) =>
  envelope.event === 'article.sync' || envelope.event === 'article.trash';

/** Seconds between signing and receiving: inside the window, either side of now. */
export const ageArb = fc.integer({ min: -(TOLERANCE_SECONDS - 1), max: TOLERANCE_SECONDS - 1 });

/** JSON nested `depth` levels deep, as text: no recursion needed to build or to print it. */
export const deepJsonArb = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);
