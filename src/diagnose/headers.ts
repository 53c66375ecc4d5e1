/**
 * Headers as the diagnosis reads them: every value of every name, lower-cased, so a repeated
 * header shows as two values rather than one copy silently winning.
 */
export type HeaderValues = ReadonlyMap<string, readonly string[]>;

/** Names worth looking at on a `get`-only headers object that cannot list its names. */
const KNOWN = [
  'authorization',
  'content-type',
  'x-service-timestamp',
  'x-service-signature',
  'x-service-event',
  'x-service-delivery-id',
  'x-signature',
  'x-hub-signature-256',
  'x-hub-signature',
  'x-webhook-signature',
  'webhook-signature',
  'signature',
];

/** Reads a Fetch `Headers`, a plain object (string or string[] values, any case) or a `get`-only object. */
export function headerValues(headers: unknown): HeaderValues {
  const out = new Map<string, string[]>();
  const add = (name: string, value: unknown) => {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length === 0) return;
    const key = name.toLowerCase();
    out.set(key, [...(out.get(key) ?? []), ...values]);
  };
  if (typeof headers !== 'object' || headers === null) return out;
  const h = headers as { forEach?: unknown; get?: unknown };
  if (typeof h.forEach === 'function' && typeof h.get === 'function') {
    (headers as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      add(name, value);
    });
  } else if (typeof h.get === 'function') {
    for (const name of KNOWN) add(name, (headers as { get(name: string): unknown }).get(name) ?? undefined);
  } else {
    for (const [name, value] of Object.entries(headers)) add(name, value);
  }
  return out;
}

/** The one value of a header, joined with `, ` when repeated (as Fetch does), or undefined. */
export function single(headers: HeaderValues, name: string): string | undefined {
  const values = headers.get(name);
  return values ? values.join(', ') : undefined;
}

/** The headers as a plain object, for handing to `verify`. */
export function headerRecord(headers: HeaderValues): Record<string, string[]> {
  return Object.fromEntries([...headers].map(([name, values]) => [name, [...values]]));
}
