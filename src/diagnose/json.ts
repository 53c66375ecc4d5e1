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
    const text = write(value, s);
    if (text === undefined || seen.has(text)) continue;
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

/** A container being written: its items left to write, and what closes it. */
interface Frame {
  entries: [string | undefined, unknown][];
  next: number;
  close: string;
  depth: number;
}

/**
 * Longer than any body a receiver takes (10 MiB by default): a layout past it cannot be the
 * signed bytes. Deep nesting indented grows with the square of the depth, so it stops here.
 */
const MAX_LAYOUT_CHARS = 16 * 1024 * 1024;

/**
 * Writes the value in one style, or undefined past {@link MAX_LAYOUT_CHARS}. Iterative, with
 * an explicit stack: a body nested 100,000 levels deep is still explained, where a recursive
 * writer would overflow the call stack.
 */
function write(value: unknown, s: JsonStyle): string | undefined {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const stack: Frame[] = [];
  const indent = (depth: number) => `\n${' '.repeat(s.indent * depth)}`;
  const open = (item: unknown, depth: number) => {
    if (item === null || typeof item !== 'object') return void push(scalar(item, s));
    const array = Array.isArray(item);
    const entries: [string | undefined, unknown][] = array
      ? item.map((element) => [undefined, element])
      : Object.entries(item);
    const [start, end] = array ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return void push(start + end);
    push(start);
    stack.push({ entries, next: 0, close: end, depth });
  };
  open(value, 0);
  while (stack.length > 0) {
    if (length > MAX_LAYOUT_CHARS) return undefined;
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.entries.length) {
      stack.pop();
      push(s.indent === 0 ? frame.close : indent(frame.depth) + frame.close);
      continue;
    }
    const [key, item] = frame.entries[frame.next]!;
    if (frame.next > 0) push(s.itemSeparator);
    if (s.indent > 0) push(indent(frame.depth + 1));
    if (key !== undefined) push(scalar(key, s) + s.keySeparator);
    frame.next++;
    open(item, frame.depth + 1);
  }
  return parts.join('');
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
