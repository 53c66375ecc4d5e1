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

/**
 * {@link constantTimeEqual} for the part of a header value from `start` on against UTF-8
 * bytes, without slicing or encoding the text first (both cost more than the comparison).
 * Answers undefined when that text is not ASCII, the only case where a char code and its
 * UTF-8 byte are the same; the caller then encodes. Whether the text is ASCII is the
 * sender's own business, so that branch leaks no secret.
 */
export function constantTimeEqualAscii(text: string, start: number, bytes: Uint8Array): boolean | undefined {
  const textLength = text.length - start;
  const length = Math.max(textLength, bytes.length);
  let difference = textLength ^ bytes.length;
  let seen = 0;
  for (let i = 0; i < length; i++) {
    // Past the end charCodeAt gives NaN and the array undefined; `| 0` makes both 0.
    const code = text.charCodeAt(start + i) | 0;
    seen |= code;
    difference |= code ^ (bytes[i]! | 0);
  }
  return seen > 0x7f ? undefined : difference === 0;
}
