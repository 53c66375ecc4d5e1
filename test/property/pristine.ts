import { afterAll, expect } from 'vitest';

const PROTOTYPES = {
  Object: Object.prototype,
  Array: Array.prototype,
  Function: Function.prototype,
  String: String.prototype,
} as const;

type Snapshot = Record<string, [string | symbol, unknown][]>;

function snapshot(): Snapshot {
  const out: Snapshot = {};
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    out[name] = Reflect.ownKeys(proto).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(proto, key)!;
      return [key, 'value' in descriptor ? descriptor.value : descriptor.get];
    });
  }
  return out;
}

const baselineCount = Reflect.ownKeys(Object.prototype).length;

/** Cheap enough for every generated case: nothing new on Object.prototype, nothing inherited by `{}`. */
export function expectObjectPrototypeUntouched(): void {
  const inherited: string[] = [];
  for (const key in {}) inherited.push(key);
  if (
    inherited.length > 0 ||
    Reflect.ownKeys(Object.prototype).length !== baselineCount ||
    Object.getPrototypeOf(Object.prototype) !== null
  ) {
    throw new Error(`Object.prototype was polluted: ${inherited.join(', ')}`);
  }
}

/** Takes a full snapshot of the built-in prototypes now and compares it after the file's last test. */
export function guardPrototypes(): void {
  const before = snapshot();
  afterAll(() => {
    expect(snapshot()).toEqual(before);
  });
}
