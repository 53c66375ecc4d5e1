/**
 * The ways common JSON writers lay out the same value. A receiver that parsed the body and
 * wrote it again verifies different bytes; laying the parsed value out each of these ways
 * finds the bytes the signer actually covered.
 */

/** How a JSON writer lays out a value. */
interface JsonStyle {
  /** What the layout is, for the diagnosis, e.g. "compact JSON (JSON.stringify)". */
  label: string;
  indent: number;
  itemSeparator: string;
  keySeparator: string;
  /** Non-ASCII characters as `\uXXXX` escapes. */
  asciiOnly: boolean;
  /** `/` as `\/`. */
  escapeSlash: boolean;
}

const STYLES: readonly JsonStyle[] = [
  style('compact JSON (JSON.stringify)', 0, ',', ':'),
  style(
    `JSON with ", " and ": " separators and non-ASCII as \\u escapes (Python's json.dumps default)`,
    0,
    ', ',
    ': ',
    {
      asciiOnly: true,
    },
  ),
  style('JSON with ", " and ": " separators (json.dumps with ensure_ascii=False)', 0, ', ', ': '),
  style('compact JSON with non-ASCII as \\u escapes', 0, ',', ':', { asciiOnly: true }),
  style(`compact JSON with "/" and non-ASCII escaped (PHP's json_encode default)`, 0, ',', ':', {
    asciiOnly: true,
    escapeSlash: true,
  }),
  style('compact JSON with "/" escaped', 0, ',', ':', { escapeSlash: true }),
  style('JSON indented with 2 spaces', 2, ',', ': '),
  style('JSON indented with 2 spaces, non-ASCII as \\u escapes', 2, ',', ': ', { asciiOnly: true }),
  style('JSON indented with 4 spaces', 4, ',', ': '),
  style('JSON indented with 4 spaces, non-ASCII as \\u escapes', 4, ',', ': ', { asciiOnly: true }),
];

function style(
  label: string,
  indent: number,
  itemSeparator: string,
  keySeparator: string,
  flags: { asciiOnly?: boolean; escapeSlash?: boolean } = {},
): JsonStyle {
  return { label, indent, itemSeparator, keySeparator, asciiOnly: false, escapeSlash: false, ...flags };
}

/** One layout of the parsed body. */
export interface JsonLayout {
  label: string;
  indented: boolean;
  text: string;
}

/** The parsed value written in every known layout, without repeats. */
export function jsonLayouts(value: unknown): JsonLayout[] {
  const seen = new Set<string>();
  const out: JsonLayout[] = [];
  for (const s of STYLES) {
    const text = write(value, s, 0);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push({ label: s.label, indented: s.indent > 0, text });
  }
  return out;
}

/**
 * The text without whitespace between tokens, strings untouched: the signed bytes when a
 * pretty-printer only added whitespace (and kept the escapes and number formats).
 */
export function minifiedJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') out += char;
  }
  return out;
}

/** True when the text is laid out over several indented lines. */
export const isIndented = (text: string): boolean => /[[{,]\r?\n[ \t]+["[{\d\-tfn]/.test(text);

function write(value: unknown, s: JsonStyle, depth: number): string {
  if (value === null || typeof value !== 'object') return scalar(value, s);
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const items = entries.map(
    ([key, item]) => (key === undefined ? '' : scalar(key, s) + s.keySeparator) + write(item, s, depth + 1),
  );
  if (s.indent === 0) return open + items.join(s.itemSeparator) + close;
  const inner = `\n${' '.repeat(s.indent * (depth + 1))}`;
  return `${open}${inner}${items.join(s.itemSeparator + inner)}\n${' '.repeat(s.indent * depth)}${close}`;
}

function scalar(value: unknown, s: JsonStyle): string {
  let text = JSON.stringify(value) ?? 'null';
  if (typeof value !== 'string') return text;
  if (s.asciiOnly) text = text.replace(/[\u0080-\uffff]/g, escapeUnicode);
  if (s.escapeSlash) text = text.replaceAll('/', '\\/');
  return text;
}

const escapes = new Map<string, string>();
/** `\uXXXX` in lower-case hex, as Python and PHP write it; memoised, since an article repeats its accented letters. */
function escapeUnicode(char: string): string {
  let escaped = escapes.get(char);
  if (escaped === undefined) {
    escaped = `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    if (escapes.size < 4096) escapes.set(char, escaped);
  }
  return escaped;
}
