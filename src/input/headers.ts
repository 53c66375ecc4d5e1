/**
 * Headers as users hand them over: a Fetch `Headers`, or a plain object such as Node's
 * `req.headers`, with string or string[] values under names of any case.
 */
export type HeadersInput =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads one header by its lower-case name. */
export type HeaderLookup = (lowerName: string) => string | undefined;

const NONE: HeaderLookup = () => undefined;

/**
 * The number a header that must be all ASCII digits stands for (`X-Service-Timestamp`,
 * `Content-Length`), or undefined when it is empty or holds anything else. What
 * `/^[0-9]+$/.test(text) ? Number(text) : undefined` answers, in about a tenth of the
 * instructions (a regular expression run and a string-to-number conversion cost some 700 per
 * delivery). Exact up to 2^53; past it within a rounding of `Number(text)`, which is far outside
 * any timestamp window or body limit either way.
 */
export function digitsValue(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Builds a lookup over any header shape, in one pass. Repeated values are joined with `, `
 * the way Fetch's `Headers` joins them, so a duplicated security header fails its check the
 * same way on every framework instead of one copy silently winning.
 */
export function headerLookup(headers: unknown): HeaderLookup {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return NONE;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') return fromGetter(headers as { get(name: string): unknown });
  return fromRecord(headers as Record<string, unknown>);
}

function fromGetter(headers: { get(name: string): unknown }): HeaderLookup {
  return (name) => {
    try {
      const value = headers.get(name);
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * The headers themselves when they are a plain object whose names are all lower case already,
 * as Node's `req.headers` is, and whose prototype holds none of the headers a delivery is
 * verified on: {@link deliveryHeader} then reads those with no lookup built and no
 * `Object.hasOwn` per read. Undefined for any other shape (a `Headers`, mixed-case names, a
 * polluted or unusual prototype), which takes {@link headerLookup}.
 */
export function lowerCaseRecord(headers: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') return undefined;
  const prototype = Object.getPrototypeOf(headers);
  if (prototype !== null && (prototype !== OBJECT_PROTOTYPE || holdsDeliveryHeader(prototype))) return undefined;
  return namesLowerCase(headers as Record<string, unknown>) ? (headers as Record<string, unknown>) : undefined;
}

/** The names of the last record found all lower case, in order: most requests repeat them. */
let lastNames: string[] = [];

/**
 * {@link allLowerCase} over a record's names without building their array (`for...in` reads
 * V8's cached list of a shape's names; it also sees enumerable inherited names, which only
 * sends more objects to the lookup). Names equal to the last all-lower-case record's, in the
 * same order, cost a string comparison each: Node hands over the same name strings.
 */
function namesLowerCase(record: Record<string, unknown>): boolean {
  const last = lastNames;
  let names: string[] | undefined;
  let i = 0;
  for (const key in record) {
    if (names === undefined && key === last[i]) {
      i++;
      continue;
    }
    if (names === undefined) names = last.slice(0, i);
    if (!LOWER_NAMES.has(key)) {
      if (key !== key.toLowerCase()) return false;
      if (LOWER_NAMES.size < LOWER_NAMES_MAX) LOWER_NAMES.add(key);
    }
    names.push(key);
    i++;
  }
  if (names !== undefined) lastNames = names;
  else if (i !== last.length) lastNames = last.slice(0, i);
  return true;
}

const OBJECT_PROTOTYPE = Object.prototype;

// Asked on every call, as pollution can come at any time; each name spelled out, since `in`
// with a constant name on one object costs next to nothing once optimised.
const holdsDeliveryHeader = (p: object) =>
  'authorization' in p || 'x-service-timestamp' in p || 'x-service-signature' in p || 'x-service-delivery-id' in p;

/** The names {@link deliveryHeader} may read. */
export type DeliveryHeaderName =
  | 'authorization'
  | 'x-service-timestamp'
  | 'x-service-signature'
  | 'x-service-delivery-id';

/**
 * One of the delivery's headers from a {@link lowerCaseRecord}, repeated values joined: a
 * plain read, since that record's prototype was found to hold none of these names.
 */
export function deliveryHeader(
  record: Readonly<Record<string, unknown>>,
  name: DeliveryHeaderName,
): string | undefined {
  // A read per name, not `record[name]`: each then learns the one shape it sees, where a shared
  // keyed read of four names goes megamorphic.
  switch (name) {
    case 'authorization':
      return join(record.authorization);
    case 'x-service-timestamp':
      return join(record['x-service-timestamp']);
    case 'x-service-signature':
      return join(record['x-service-signature']);
    default:
      return join(record['x-service-delivery-id']);
  }
}

/** One header of a plain object by its lower-case name; own properties only, repeated values joined. */
export function recordHeader(record: Readonly<Record<string, unknown>>, name: string): string | undefined {
  return Object.hasOwn(record, name) ? join(record[name]) : undefined;
}

/**
 * Names already found lower case. Node hands over the same name strings on every request, and
 * a string caches its hash, so a Set lookup costs less than the `toLowerCase` call it saves
 * (counted: see BENCHMARKS.md, "Instruction counts"). Bounded, so odd names cannot grow it.
 */
const LOWER_NAMES = new Set<string>();
const LOWER_NAMES_MAX = 512;

/** A plain loop: `every` with a callback costs a closure call per name on the hot path. */
function allLowerCase(keys: string[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (LOWER_NAMES.has(key)) continue;
    if (key !== key.toLowerCase()) return false;
    if (LOWER_NAMES.size < LOWER_NAMES_MAX) LOWER_NAMES.add(key);
  }
  return true;
}

function fromRecord(record: Record<string, unknown>): HeaderLookup {
  const keys = Object.keys(record);
  // Node lower-cases names already, so most objects need no copy.
  if (allLowerCase(keys)) return (name) => recordHeader(record, name);
  const lowered = new Map<string, unknown[]>();
  for (const key of keys) {
    const name = key.toLowerCase();
    const list = lowered.get(name) ?? [];
    list.push(record[key]);
    lowered.set(name, list);
  }
  return (name) => join(lowered.get(name)?.flat());
}

function join(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  const strings = value.filter((item): item is string => typeof item === 'string');
  return strings.length > 0 ? strings.join(', ') : undefined;
}

/**
 * Like {@link headerLookup}, for headers read again after they failed verification (for a hook
 * or the inspector): headers whose getters throw yield undefined, never a second failure.
 */
export function safeHeaderLookup(headers: unknown): HeaderLookup {
  try {
    const lookup = headerLookup(headers);
    return (name) => {
      try {
        return lookup(name);
      } catch {
        return undefined;
      }
    };
  } catch {
    return NONE;
  }
}
