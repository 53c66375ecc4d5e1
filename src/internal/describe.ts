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
