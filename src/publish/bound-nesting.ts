import { commentEnd, isLetter, rawTextEnd, readTag } from './html-tokens.js';

// A single pass over the HTML text, before the real parser sees it, that keeps the tree the
// parser will build shallow and its work linear. The hast packages walk trees recursively (a
// few hundred nested tables overflow the stack), and the HTML parser's "reconstruct the active
// formatting elements" step re-opens every formatting element left open, which makes
// `<p><b id=1><p><b id=2>…` cost quadratic time and memory. Neither can be limited from outside,
// so the input is bounded here: this pass only drops tags, never text, and never reorders anything.

/** Open elements deeper than this lose their tags (their text stays). */
export const NESTING_LIMIT = 128;
/**
 * Formatting elements (`<b>`, `<code>`…) left open when their parent closed: the parser keeps
 * them and re-opens them in every later block. Past this many, formatting start tags are dropped.
 */
export const LEFT_OPEN_FORMATTING_LIMIT = 8;

const VOID = new Set(
  'area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr'.split(' '),
);
const RAW_TEXT = new Set('script style xmp iframe noembed noframes textarea title plaintext'.split(' '));
const FORMATTING = new Set('b big code em font i nobr s small strike strong tt u'.split(' '));
const FOREIGN = new Set(['svg', 'math']);
// Elements that close an open <p> (the parser's "close a p element" before inserting them).
const CLOSES_P = new Set(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form plaintext table hr xmp li dd dt'.split(
    ' ',
  ),
);
const SCOPE = new Set('table td th caption html template applet object marquee button svg math'.split(' '));
const HEADING = /^h[1-6]$/;

interface Frame {
  name: string;
  foreign: boolean;
  formatting: boolean;
  /** Start tags dropped while this frame was the deepest, by name, so their end tags go too. */
  dropped?: Map<string, number>;
}

/**
 * The input with tags dropped where the parser's tree would nest deeper than
 * {@link NESTING_LIMIT}, and formatting start tags dropped once
 * {@link LEFT_OPEN_FORMATTING_LIMIT} formatting elements were left open. Linear in the input's
 * length.
 */
export function boundNesting(html: string, keepTags = true): string {
  const out: string[] = [];
  const emit = (text: string) => void (keepTags && out.push(text));
  let lower: string | undefined;
  // A root frame at the bottom keeps the tags dropped at the top level.
  const stack: Frame[] = [{ name: '#root', foreign: false, formatting: false }];
  // Formatting elements popped without their own end tag, by name: the parser re-opens them.
  const leftOpen = new Map<string, number>();
  let leftOpenTotal = 0;
  let i = 0;
  const inForeign = () => stack.some((frame) => frame.foreign);
  const popTo = (index: number, endedByOwnTag: boolean) => {
    stack.splice(index).forEach((frame, k) => {
      if (!frame.formatting || (k === 0 && endedByOwnTag)) return;
      leftOpen.set(frame.name, (leftOpen.get(frame.name) ?? 0) + 1);
      leftOpenTotal++;
    });
  };
  const findOpen = (names: (name: string) => boolean, stops: (name: string) => boolean) => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const name = stack[k]!.name;
      if (names(name)) return k;
      if (stops(name)) return -1;
    }
    return -1;
  };
  const closeImplied = (name: string) => {
    const close = (names: (n: string) => boolean, stops: (n: string) => boolean) => {
      const at = findOpen(names, stops);
      if (at >= 1) popTo(at, name === 'nobr');
    };
    if (CLOSES_P.has(name))
      close(
        (n) => n === 'p',
        (n) => SCOPE.has(n),
      );
    if (name === 'li')
      close(
        (n) => n === 'li',
        (n) => n === 'ul' || n === 'ol' || n === 'menu' || SCOPE.has(n),
      );
    if (name === 'dd' || name === 'dt')
      close(
        (n) => n === 'dd' || n === 'dt',
        (n) => n === 'dl' || SCOPE.has(n),
      );
    if (name === 'td' || name === 'th')
      close(
        (n) => n === 'td' || n === 'th',
        (n) => n === 'tr' || n === 'table',
      );
    if (name === 'tr')
      close(
        (n) => n === 'tr',
        (n) => n === 'table',
      );
    if (name === 'tbody' || name === 'thead' || name === 'tfoot')
      close(
        (n) => n === 'tbody' || n === 'thead' || n === 'tfoot',
        (n) => n === 'table',
      );
    if (name === 'option' || name === 'optgroup')
      close(
        (n) => n === 'option',
        (n) => n !== 'option',
      );
    if (HEADING.test(name) && HEADING.test(stack.at(-1)!.name)) popTo(stack.length - 1, false);
    if (name === 'a' || name === 'nobr' || name === 'button')
      close(
        (n) => n === name,
        (n) => SCOPE.has(n),
      );
  };

  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    out.push(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      i = commentEnd(html, lt);
      emit(html.slice(lt, i));
    } else if (
      html[lt + 1] === '!' ||
      html[lt + 1] === '?' ||
      (html[lt + 1] === '/' && !isLetter(html.charCodeAt(lt + 2)))
    ) {
      const close = html.indexOf('>', lt);
      i = close < 0 ? html.length : close + 1;
      emit(html.slice(lt, i));
    } else if (html[lt + 1] === '/') {
      const tag = readTag(html, lt + 2);
      if (!tag) break;
      i = tag.end;
      const top = stack.at(-1);
      const dropped = top?.dropped?.get(tag.name) ?? 0;
      if (dropped > 0) top!.dropped!.set(tag.name, dropped - 1);
      else {
        const at = findOpen(
          (n) => n === tag.name,
          () => false,
        );
        if (at >= 1) popTo(at, true);
        else if ((leftOpen.get(tag.name) ?? 0) > 0) {
          // The parser drops a formatting element left open from its list at its end tag.
          leftOpen.set(tag.name, leftOpen.get(tag.name)! - 1);
          leftOpenTotal--;
        }
        emit(html.slice(lt, i));
      }
    } else if (isLetter(next)) {
      const tag = readTag(html, lt + 1);
      if (!tag) break;
      i = tag.end;
      const foreign = inForeign();
      if (!foreign) closeImplied(tag.name);
      const opens = !VOID.has(tag.name) && !(tag.selfClosing && (foreign || FOREIGN.has(tag.name)));
      const formatting = !foreign && FORMATTING.has(tag.name);
      const tooDeep = opens && stack.length > NESTING_LIMIT;
      if (tooDeep || (formatting && leftOpenTotal >= LEFT_OPEN_FORMATTING_LIMIT)) {
        if (!opens) continue;
        const top = stack.at(-1)!;
        top.dropped ??= new Map();
        top.dropped.set(tag.name, (top.dropped.get(tag.name) ?? 0) + 1);
        continue;
      }
      emit(html.slice(lt, i));
      if (!opens) continue;
      stack.push({ name: tag.name, foreign: foreign || FOREIGN.has(tag.name), formatting });
      if (!foreign && RAW_TEXT.has(tag.name)) {
        lower ??= html.toLowerCase();
        const end = rawTextEnd(html, lower, i, tag.name);
        emit(html.slice(i, end));
        i = end;
      }
    } else {
      out.push(keepTags ? '<' : '&lt;');
      i = lt + 1;
    }
  }
  if (i < html.length && html.indexOf('<', i) < 0) out.push(html.slice(i));
  return out.join('');
}

/**
 * The text of the input with every tag, comment and raw text (scripts, styles) removed: what is
 * shown when the parser fails anyway, so a sync never fails on its HTML.
 */
export function textOnly(html: string): string {
  return boundNesting(html, false);
}
