/**
 * Compares two byte strings in time that depends only on their lengths, never on where they
 * differ: every byte is visited and differences are OR-ed together, with no early exit.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  for (let i = 0; i < length; i++) {
    // Out-of-range reads give undefined; `| 0` turns them into 0 so the loop shape never changes.
    difference |= (a[i]! | 0) ^ (b[i]! | 0);
  }
  return difference === 0;
}
