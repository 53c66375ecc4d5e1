// Just enough of the HTML tokenizer for boundNesting: where tags, comments and raw text
// (script, style, title…) begin and end, read the way a browser reads them.

/** A start or end tag as the HTML tokenizer reads it. */
export interface Tag {
  name: string;
  end: number;
  hasAttributes: boolean;
  selfClosing: boolean;
}

export const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
export const isSpace = (char: string) =>
  char === ' ' || char === '\n' || char === '\t' || char === '\f' || char === '\r';

/** Reads a tag from `<` or `</` at `start`; `undefined` when the text ends inside it (the parser drops such a tag). */
export function readTag(html: string, nameAt: number): Tag | undefined {
  let i = nameAt;
  while (i < html.length && !isSpace(html[i]!) && html[i] !== '/' && html[i] !== '>') i++;
  const name = html.slice(nameAt, i).toLowerCase();
  let hasAttributes = false;
  let selfClosing = false;
  while (i < html.length) {
    const char = html[i]!;
    if (char === '>') return { name, end: i + 1, hasAttributes, selfClosing };
    if (isSpace(char) || char === '/') {
      selfClosing = char === '/';
      i++;
      continue;
    }
    selfClosing = false;
    hasAttributes = true;
    i++; // the first character of a name may be `=`
    while (i < html.length && !isSpace(html[i]!) && !'/>='.includes(html[i]!)) i++;
    while (i < html.length && isSpace(html[i]!)) i++;
    if (html[i] !== '=') continue;
    i++;
    while (i < html.length && isSpace(html[i]!)) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      if (close < 0) return undefined;
      i = close + 1;
    } else while (i < html.length && !isSpace(html[i]!) && html[i] !== '>') i++;
  }
  return undefined;
}

/** Where a comment that starts at `start` (`<!--`) ends, as the HTML tokenizer sees it. */
export function commentEnd(html: string, start: number): number {
  const body = start + 4;
  if (html.startsWith('>', body)) return body + 1;
  if (html.startsWith('->', body)) return body + 2;
  const ends = [html.indexOf('-->', body), html.indexOf('--!>', body)].filter((at) => at >= 0);
  if (ends.length === 0) return html.length;
  const at = Math.min(...ends);
  return at + (html.startsWith('-->', at) ? 3 : 4);
}

/** Where the raw text of `name` (script, style, title…) ends: at its end tag, or the end of the input. */
export function rawTextEnd(html: string, lower: string, from: number, name: string): number {
  if (name === 'plaintext') return html.length;
  for (let at = lower.indexOf(`</${name}`, from); at >= 0; at = lower.indexOf(`</${name}`, at + 1)) {
    const after = html[at + 2 + name.length];
    if (after === undefined || after === '>' || after === '/' || isSpace(after)) return at;
  }
  return html.length;
}
