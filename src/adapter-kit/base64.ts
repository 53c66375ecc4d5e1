/** Node's Buffer where there is one: several times faster than `atob` for a large body. */
interface BufferLike {
  from(text: string, encoding: 'base64'): Uint8Array;
}

/** Decodes base64 text to bytes on any runtime. */
export function decodeBase64(text: string): Uint8Array {
  const buffer = (globalThis as { Buffer?: BufferLike }).Buffer;
  if (buffer) return buffer.from(text, 'base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
