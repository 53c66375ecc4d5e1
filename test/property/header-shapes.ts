import fc from 'fast-check';
import type { HeadersInput } from 'webhook-cms-receiver';

/** Headers as they came off the wire: ordered name/value pairs, names in any case, repeats allowed. */
export type RawHeaders = [name: string, value: string][];

/**
 * The ways frameworks hand headers over, all semantically the same: Node's lower-cased object
 * (repeats as arrays), an object keeping the sender's casing, and a Fetch `Headers`.
 */
export type HeaderShape = { kind: 'lower' } | { kind: 'recased'; mask: boolean[] } | { kind: 'fetch' };

export const headerShapeArb: fc.Arbitrary<HeaderShape> = fc.oneof(
  fc.constant({ kind: 'lower' as const }),
  fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }).map((mask) => ({ kind: 'recased' as const, mask })),
  fc.constant({ kind: 'fetch' as const }),
);

export function toRaw(headers: Record<string, string>): RawHeaders {
  return Object.entries(headers);
}

/** Builds one framework shape from raw pairs. */
export function shapeHeaders(raw: RawHeaders, shape: HeaderShape): HeadersInput {
  if (shape.kind === 'fetch') {
    const headers = new Headers();
    // Fetch carries printable Latin-1 only, and so does a real request; only X-Service-Event
    // (informational, from the unknown event's name) can hold more, and gets spelt in hex.
    for (const [name, value] of raw) headers.append(name, isPrintableLatin1(value) ? value : hexOf(value));
    return headers;
  }
  const record: Record<string, string | string[]> = {};
  raw.forEach(([name, value], index) => {
    const key = shape.kind === 'lower' ? name.toLowerCase() : recase(name, shape.mask, index);
    const previous = record[key];
    record[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  });
  return record;
}

/** Flips the case of letters as the mask says: the same header name, spelt differently. */
export function recase(text: string, mask: readonly boolean[], salt = 0): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    out += mask[(i + salt * 5) % mask.length] ? char.toUpperCase() : char.toLowerCase();
  }
  return out;
}

function isPrintableLatin1(text: string): boolean {
  return /^[\x21-\x7e\xa0-\xff]([\x20-\x7e\xa0-\xff]*[\x21-\x7e\xa0-\xff])?$/.test(text);
}

function hexOf(text: string): string {
  return Array.from(text, (char) => char.charCodeAt(0).toString(16)).join('-') || 'empty';
}
