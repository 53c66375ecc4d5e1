/** The SHA-256 (hex) of a delivery id's UTF-16 code units: engines derive job ids from it. */
export { utf16Sha256Hex as sha256Hex } from '../internal/utf16-sha256.js';
