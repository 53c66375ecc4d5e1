/**
 * The SHA-256 (hex) of a string's UTF-16 code units, low byte first: one byte string per JS
 * string, lone surrogates included, which UTF-8 could not give. Stores hash odd ids with it and
 * queue engines derive job ids from delivery ids. Web Crypto, so no Node import.
 */
export async function utf16Sha256Hex(text: string): Promise<string> {
  const units = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    units[2 * i] = unit & 0xff;
    units[2 * i + 1] = unit >> 8;
  }
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', units));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
