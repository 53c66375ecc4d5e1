/**
 * Byte-level codecs the diagnosis needs on every runtime, without `Buffer`: strict UTF-8,
 * base64 both ways, and Latin-1 / Windows-1252 as the mis-decoders that produce mojibake.
 */

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

/** The text of the bytes, or undefined when they are not valid UTF-8. A BOM is kept as U+FEFF. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export const utf8Bytes = (text: string): Uint8Array => encoder.encode(text);

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const startsWithBom = (bytes: Uint8Array): boolean =>
  bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? ALPHABET[n & 63]! : '=';
  }
  return out;
}

/**
 * Decodes standard or URL-safe base64, padded or not, ignoring line breaks; undefined when
 * the text is not base64 at all.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  const clean = text
    .replace(/[\r\n]/g, '')
    .replace(/-/g, '+')
    .replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return undefined;
  const data = clean.replace(/=+$/, '');
  if (data.length % 4 === 1 || (clean.includes('=') && clean.length % 4 !== 0)) return undefined;
  const out = new Uint8Array(Math.floor((data.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const char of data) {
    value = (value << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

/** Windows-1252's characters for bytes 0x80 to 0x9F; the five it leaves undefined map to themselves (as WHATWG does). */
const CP1252 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Each byte as one character: ISO-8859-1, or Windows-1252 (what browsers and `TextDecoder('latin1')` use). */
export function decodeSingleByte(bytes: Uint8Array, windows1252: boolean): string {
  const chars: string[] = [];
  // In slices, so a large body neither builds one char at a time nor overflows the argument limit.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    const codes = Array.from(bytes.subarray(at, at + 0x8000), (byte) =>
      windows1252 && byte >= 0x80 && byte <= 0x9f ? CP1252.charCodeAt(byte - 0x80) : byte,
    );
    chars.push(String.fromCharCode(...codes));
  }
  return chars.join('');
}

/** The inverse of {@link decodeSingleByte}: undefined when a character has no byte in that charset. */
export function encodeSingleByte(text: string, windows1252: boolean): Uint8Array | undefined {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const inCp1252 = windows1252 ? CP1252.indexOf(text[i]!) : -1;
    if (inCp1252 >= 0) out[i] = 0x80 + inCp1252;
    else if (code <= 0xff && !(windows1252 && code >= 0x80 && code <= 0x9f)) out[i] = code;
    else return undefined;
  }
  return out;
}
