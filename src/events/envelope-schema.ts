/**
 * Field-type checks for the envelope, written by hand so the core needs no dependency. Each
 * answers with the first wrong field (for the rejection reason), or undefined when all fit.
 *
 * The fields are spelled out rather than walked from a table: named property reads on
 * objects of one shape are what V8 makes fastest, and these run on every delivery. A field
 * must be the object's own: a `__proto__` key in the JSON, or a polluted Object.prototype,
 * must not satisfy a check.
 */
type Fields = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const OBJECT_PROTOTYPE = Object.prototype;
type OwnTest = (object: Fields, key: string) => boolean;
const readsOwnOnly: OwnTest = () => true;

/**
 * How to tell that a field is the object's own, chosen once per object instead of an
 * `Object.hasOwn` call per field (a builtin call each, 15 per delivery). A JSON object's
 * prototype is Object.prototype: when that holds none of `fields` (asked on every call, as
 * pollution can come at any time), or the object has no prototype, a read finds only the
 * object's own fields. Any other prototype keeps `Object.hasOwn`.
 */
function ownTest(object: Fields, prototypeHolds: (prototype: object) => boolean): OwnTest {
  const prototype = Object.getPrototypeOf(object);
  if (prototype === null || (prototype === OBJECT_PROTOTYPE && !prototypeHolds(prototype))) return readsOwnOnly;
  return Object.hasOwn;
}

// Each name spelled out: `in` with a constant name on one object costs next to nothing once optimised.
const holdsSyncField = (p: object) =>
  'id' in p ||
  'title' in p ||
  'slug' in p ||
  'status' in p ||
  'content_markdown' in p ||
  'content_html' in p ||
  'meta_description' in p ||
  'featured_image_url' in p ||
  'tags' in p ||
  'scheduled_at' in p ||
  'published_at' in p;
const holdsTrashField = (p: object) => 'id' in p || 'slug' in p;
const holdsProfileField = (p: object) => 'id' in p || 'domain' in p;
const holdsEnvelopeField = (p: object) => 'event' in p || 'timestamp' in p;

/** The envelope's own-field test (its `event` and `timestamp`), for parse-event. */
export const envelopeOwnTest = (json: Fields): OwnTest => ownTest(json, holdsEnvelopeField);

const isStringArray = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The full article of `article.sync`. */
export function syncArticleMismatch(a: unknown): string | undefined {
  if (!isPlainObject(a)) return 'article';
  const own = ownTest(a, holdsSyncField);
  if (typeof a.id !== 'string' || !own(a, 'id')) return 'article.id';
  if (typeof a.title !== 'string' || !own(a, 'title')) return 'article.title';
  if (typeof a.slug !== 'string' || !own(a, 'slug')) return 'article.slug';
  if (typeof a.status !== 'string' || !own(a, 'status')) return 'article.status';
  if (typeof a.content_markdown !== 'string' || !own(a, 'content_markdown')) return 'article.content_markdown';
  if (typeof a.content_html !== 'string' || !own(a, 'content_html')) return 'article.content_html';
  if (typeof a.meta_description !== 'string' || !own(a, 'meta_description')) return 'article.meta_description';
  if ((a.featured_image_url !== null && typeof a.featured_image_url !== 'string') || !own(a, 'featured_image_url'))
    return 'article.featured_image_url';
  if (!isStringArray(a.tags) || !own(a, 'tags')) return 'article.tags';
  if ((a.scheduled_at !== null && typeof a.scheduled_at !== 'string') || !own(a, 'scheduled_at'))
    return 'article.scheduled_at';
  if ((a.published_at !== null && typeof a.published_at !== 'string') || !own(a, 'published_at'))
    return 'article.published_at';
  return undefined;
}

/** What `article.trash` says of the deleted article. */
export function trashArticleMismatch(a: unknown): string | undefined {
  if (!isPlainObject(a)) return 'article';
  const own = ownTest(a, holdsTrashField);
  if (typeof a.id !== 'string' || !own(a, 'id')) return 'article.id';
  if (typeof a.slug !== 'string' || !own(a, 'slug')) return 'article.slug';
  return undefined;
}

/** The profile of both article events. */
export function profileMismatch(p: unknown): string | undefined {
  if (!isPlainObject(p)) return 'profile';
  const own = ownTest(p, holdsProfileField);
  if (typeof p.id !== 'string' || !own(p, 'id')) return 'profile.id';
  if (typeof p.domain !== 'string' || !own(p, 'domain')) return 'profile.domain';
  return undefined;
}
