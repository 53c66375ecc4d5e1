/**
 * Field-type checks for the envelope, written by hand so the core needs no dependency.
 * Each check answers with the path of the first wrong field, for the rejection reason.
 */
type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isStringOrNull: Check = (v) => v === null || typeof v === 'string';
const isStringArray: Check = (v) => Array.isArray(v) && v.every(isString);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field name and check pairs; an array, since walking it is faster than a for-in over an object. */
export type Shape = readonly (readonly [field: string, check: Check])[];

export const SYNC_ARTICLE: Shape = [
  ['id', isString],
  ['title', isString],
  ['slug', isString],
  ['status', isString],
  ['content_markdown', isString],
  ['content_html', isString],
  ['meta_description', isString],
  ['featured_image_url', isStringOrNull],
  ['tags', isStringArray],
  ['scheduled_at', isStringOrNull],
  ['published_at', isStringOrNull],
];

export const TRASH_ARTICLE: Shape = [
  ['id', isString],
  ['slug', isString],
];

export const PROFILE: Shape = [
  ['id', isString],
  ['domain', isString],
];

/** Returns the first field of `shape` that `value` gets wrong, or undefined when it fits. */
export function findMismatch(value: unknown, shape: Shape, path: string): string | undefined {
  if (!isPlainObject(value)) return path;
  for (const [key, check] of shape) {
    // Own properties only: a `__proto__` key in JSON must not satisfy a check through the prototype.
    if (!check(value[key]) || !Object.hasOwn(value, key)) return `${path}.${key}`;
  }
  return undefined;
}
