/**
 * Text for a thrown value, for a reason or log line. `String()` throws for values like
 * `Object.create(null)`; describing a failure must never become a second failure.
 */
export function describeThrown(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * What an option got, for an error that says the type: `the string "300"`, `true (a boolean)`,
 * `an object`, never the contents of a string longer than a short number or word, so a
 * misplaced secret is not echoed.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return /^[\w.+-]{0,12}$/.test(value) ? `the string "${value}"` : `a string of ${value.length} characters`;
    case 'number':
      return Number.isFinite(value) ? `${value}` : `${value} (not a finite number)`;
    case 'object':
      return 'an object';
    case 'function':
      return 'a function';
    case 'undefined':
      return 'undefined';
    default:
      return `${String(value)} (a ${typeof value})`;
  }
}
