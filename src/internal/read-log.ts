// Instrumented inputs for the constant-time tests (src/crypto/constant-time-reads.test.ts,
// src/receiver/tokens/token-reads.test.ts): a comparison that runs in time independent of the
// data reads the same positions in the same order whatever the data is, so instead of timing it (which a
// loaded machine makes meaningless) the tests record every read it makes through these views and
// compare the records. Test code only: no entry imports it, so no build ships it.

/** Every read made through a view, in order: `a[3]` is index 3 of view `a`, `t[3]` is `charCodeAt(3)` of text `t`. */
export type ReadLog = string[];

/**
 * `bytes` behind a Proxy that logs each indexed read into `log` under `name`. Methods are
 * bound to the real array, so a comparison that bypasses indexed reads (a native compare, a
 * decode to text) leaves no entries and fails the test that expects them.
 */
export function loggedBytes(bytes: Uint8Array, log: ReadLog, name = 'a'): Uint8Array {
  return new Proxy(bytes, {
    get(target, key) {
      if (typeof key === 'string' && /^-?\d+$/.test(key)) log.push(`${name}[${key}]`);
      // Typed-array getters (length, byteLength) need the real array as `this`, not the Proxy.
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `text` as a String object whose `charCodeAt` logs each position into `log` under `name`.
 * Every other string method works as on the primitive; a comparison through `===` or `slice`
 * reads nothing through `charCodeAt` and so leaves no entries.
 */
export function loggedText(text: string, log: ReadLog, name = 't'): string {
  const boxed = new String(text);
  Object.defineProperty(boxed, 'charCodeAt', {
    value(index: number) {
      log.push(`${name}[${index}]`);
      return text.charCodeAt(index);
    },
  });
  return boxed as unknown as string;
}

/** The indices read under `name`, in order. */
export function readsOf(log: ReadLog, name: string): number[] {
  const prefix = `${name}[`;
  return log.flatMap((entry) => {
    return entry.startsWith(prefix) ? [Number(entry.slice(prefix.length, -1))] : [];
  });
}

/** 0, 1, …, n - 1. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
