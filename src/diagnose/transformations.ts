import {
  BOM,
  concatBytes,
  decodeBase64,
  decodeSingleByte,
  encodeBase64,
  encodeSingleByte,
  equalBytes,
  startsWithBom,
  utf8Bytes,
  utf8Text,
} from './bytes.js';
import { isIndented, jsonLayouts, minifiedJson } from './json.js';

/** What happened to the body between signing and verify, when one of these explains a signature mismatch. */
export type BodyTransformation =
  | 'json-pretty-printed'
  | 'json-compacted'
  | 'json-re-stringified'
  | 'bom-added'
  | 'bom-removed'
  | 'base64-encoded'
  | 'base64-decoded'
  | 'lf-to-crlf'
  | 'crlf-to-lf'
  | 'trailing-newline-added'
  | 'trailing-newline-removed'
  | 'latin1-mojibake'
  | 'latin1-encoded';

/** Bytes the signer may have covered, and the change that would turn them into the body received. */
export interface Candidate {
  transformation: BodyTransformation;
  bytes: Uint8Array;
  /** What the candidate bytes are, where that adds to the transformation's own description. */
  signedAs?: string;
  /** What the received bytes are, for a re-serialization. */
  receivedAs?: string;
  /** The single-byte charset that mis-decoded or re-encoded the text. */
  charset?: string;
}

type Extras = Pick<Candidate, 'signedAs' | 'receivedAs' | 'charset'>;
type Add = (transformation: BodyTransformation, bytes: Uint8Array | undefined, extras?: Extras) => void;

const RAW = 'Hand verify the raw bytes exactly as received, before any body parser or text decoding';

/** The sentence and the fix for each transformation; `{signedAs}`, `{receivedAs}` and `{charset}` are filled in. */
export const TRANSFORMATIONS: Readonly<Record<BodyTransformation, { what: string; fix: string }>> = {
  'json-pretty-printed': {
    what: 'The body was re-serialized as indented JSON after it was signed: the signature matches the same data written as {signedAs}.',
    fix: `${RAW}: mount the webhook route before express.json() (or give it express.raw()), and never verify JSON.stringify(req.body, null, 2) or a re-formatted file.`,
  },
  'json-compacted': {
    what: 'The body was re-serialized as compact JSON after it was signed: the signature matches the same data written as {signedAs}.',
    fix: `${RAW}: mount the webhook route before express.json() (or give it express.raw()), and never verify JSON.stringify(req.body).`,
  },
  'json-re-stringified': {
    what: 'The body was parsed and stringified again: the signature matches the same data written as {signedAs}, but the bytes verified are {receivedAs}. Separators, escapes and number formats change, and the HMAC covers every byte.',
    fix: `${RAW}: mount the webhook route before express.json() (or give it express.raw()), and never verify JSON.stringify(req.body).`,
  },
  'bom-added': {
    what: 'A UTF-8 byte-order mark (EF BB BF) was put in front of the body after it was signed: an editor saving a capture as "UTF-8 with BOM", a proxy or a capture tool.',
    fix: 'Pass the bytes exactly as received; when replaying from a file, save it as UTF-8 without a BOM.',
  },
  'bom-removed': {
    what: 'The signed body began with a UTF-8 byte-order mark that was stripped before verify: TextDecoder, response.text() and most text body parsers drop it.',
    fix: 'Hand verify the raw bytes (Buffer, Uint8Array or ArrayBuffer), not text decoded from them.',
  },
  'base64-encoded': {
    what: 'The body reached verify still base64-encoded: the signature matches its decoded bytes (API Gateway or Lambda with isBase64Encoded, or a queue that stores bodies as base64).',
    fix: "Decode it first: Buffer.from(event.body, 'base64') when event.isBase64Encoded (the /lambda adapter does this for you).",
  },
  'base64-decoded': {
    what: 'The signed bytes were base64 text, and verify got them decoded.',
    fix: 'Pass the body as it came over the wire, without decoding it.',
  },
  'lf-to-crlf': {
    what: "The body's line endings were changed from LF to CRLF after it was signed: a file checked out with git's core.autocrlf, a Windows editor, or a tool that normalises line endings.",
    fix: 'Keep the bytes as received; for fixture files add "*.json -text" to .gitattributes, or re-sign the file as it is now.',
  },
  'crlf-to-lf': {
    what: "The signed body's CRLF line endings were changed to LF before verify (git, an editor, or a text transport).",
    fix: 'Keep the bytes as received; for fixture files add "*.json -text" to .gitattributes, or re-sign the file as it is now.',
  },
  'trailing-newline-added': {
    what: 'A newline was added at the end of the body after it was signed: an editor saving the capture, echo, or a heredoc.',
    fix: "Use the exact bytes: printf '%s' rather than echo, no final newline in fixture files, or re-sign the file as it is (webhook-cms-receiver sign --file).",
  },
  'trailing-newline-removed': {
    what: "The signed body's final newline was removed before verify: trim(), a shell's $(…), or a text body parser.",
    fix: 'Do not trim the body; hand verify the raw bytes.',
  },
  'latin1-mojibake': {
    what: "The UTF-8 body was decoded as {charset} and encoded again as UTF-8, so 'é' became 'Ã©': a text body parser, or a Content-Type with the wrong charset.",
    fix: `${RAW}; never decode the body to text before verify.`,
  },
  'latin1-encoded': {
    what: "The body's text was encoded again as {charset} after it was signed, so its non-ASCII characters are single bytes now.",
    fix: `${RAW}; never re-encode the body.`,
  },
};

/**
 * The bytes the signer may have covered, given the body received: each usual transformation
 * undone, the exact byte-level ones before the JSON layouts.
 */
export function candidates(body: Uint8Array): Candidate[] {
  const out: Candidate[] = [];
  const add: Add = (transformation, bytes, extras = {}) => {
    if (bytes && !equalBytes(bytes, body) && !out.some((c) => equalBytes(c.bytes, bytes)))
      out.push({ transformation, bytes, ...extras });
  };
  const text = utf8Text(body);
  // Byte-level changes first: their undoing is exact, where a JSON layout could also match them by accident.
  if (startsWithBom(body)) add('bom-added', body.subarray(3));
  else add('bom-removed', concatBytes(BOM, body));
  if (text !== undefined) {
    add('base64-encoded', decodeBase64(text.trim()));
    add('base64-decoded', utf8Bytes(encodeBase64(body)));
    if (text.includes('\r\n')) add('lf-to-crlf', utf8Bytes(text.replaceAll('\r\n', '\n')));
    if (/(^|[^\r])\n/.test(text)) add('crlf-to-lf', utf8Bytes(text.replace(/\r?\n/g, '\r\n')));
    if (/\r?\n$/.test(text)) add('trailing-newline-added', utf8Bytes(text.replace(/\r?\n$/, '')));
    add('trailing-newline-removed', utf8Bytes(`${text}\n`));
    add('trailing-newline-removed', utf8Bytes(`${text}\r\n`));
    for (const windows1252 of [false, true])
      add('latin1-mojibake', encodeSingleByte(text, windows1252), { charset: charsetName(windows1252) });
  } else {
    for (const windows1252 of [false, true])
      add('latin1-encoded', utf8Bytes(decodeSingleByte(body, windows1252)), { charset: charsetName(windows1252) });
  }
  if (text !== undefined) addJson(text, add);
  return out;
}

const charsetName = (windows1252: boolean) => (windows1252 ? 'Windows-1252' : 'Latin-1 (ISO-8859-1)');

/** The same JSON as other writers lay it out, with and without a final newline. */
function addJson(text: string, add: Add): void {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const receivedIndented = isIndented(trimmed);
  const minified = minifiedJson(trimmed);
  if (receivedIndented) {
    const signedAs = 'compact JSON (the received text without its indentation)';
    add('json-pretty-printed', utf8Bytes(minified), { signedAs });
    add('json-pretty-printed', utf8Bytes(`${minified}\n`), { signedAs: `${signedAs}, with a final newline` });
  }
  const layouts = jsonLayouts(value);
  // What the received JSON looks like, in the words of the layouts.
  const receivedAs = layouts.find((layout) => layout.text === trimmed)?.label ?? 'another layout';
  for (const layout of layouts) {
    const transformation = receivedIndented
      ? 'json-pretty-printed'
      : layout.indented
        ? 'json-compacted'
        : 'json-re-stringified';
    add(transformation, utf8Bytes(layout.text), { signedAs: layout.label, receivedAs });
    add(transformation, utf8Bytes(`${layout.text}\n`), {
      signedAs: `${layout.label}, with a final newline`,
      receivedAs,
    });
  }
}
