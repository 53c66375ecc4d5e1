import fc from 'fast-check';
import { fromHtml } from 'hast-util-from-html';
import { describe, expect, it } from 'vitest';
import { type HtmlSanitizer, loadHtmlSanitizer } from 'webhook-cms-receiver/publish';
import { budget } from './arbitraries.js';
import { unsafeParts } from './unsafe-html.js';

const sanitize: HtmlSanitizer = await loadHtmlSanitizer();

interface Node {
  type: string;
  children?: Node[];
}

/** Deepest element nesting of sanitized HTML, parsed again as a browser would (it must already be shallow). */
function depthOf(html: string): number {
  let deepest = 0;
  const pending: [Node, number][] = [[fromHtml(html, { fragment: true }) as Node, 0]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [node, depth] = item;
    deepest = Math.max(deepest, depth);
    for (const child of node.children ?? []) if (child.type === 'element') pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Counts elements in sanitized output, cheaply and without parsing. */
const tagsIn = (html: string) => html.match(/<[a-z]/gi)?.length ?? 0;

describe('sanitizeHtml on deep and adversarial trees', () => {
  it('sanitizes 390 nested tables (6 KB, a stack overflow before) and keeps the text', () => {
    const html = `${'<table><tr><td>'.repeat(390)}deep text${'</td></tr></table>'.repeat(390)}<p>after</p>`;
    const clean = sanitize(html);
    expect(clean).toContain('deep text');
    expect(clean).toContain('<p>after</p>');
    expect(depthOf(clean)).toBeLessThanOrEqual(128);
    expect(unsafeParts(clean)).toEqual([]);
  });

  it('sanitizes a megabyte of unclosed <div>, keeping every word', () => {
    const html = '<div>w'.repeat(200_000);
    const clean = sanitize(html);
    expect(clean.match(/w/g)).toHaveLength(200_000);
    expect(depthOf(clean)).toBeLessThanOrEqual(128);
  });

  it('keeps the work linear when formatting elements are re-opened again and again', () => {
    // The parser re-opens every unclosed <b> at each new <p>: quadratic nodes, minutes and
    // gigabytes for 60 KB, unless bounded.
    let html = '';
    for (let i = 0; i < 1_000; i++) html += `<p><b id=b${i}>x`;
    const clean = sanitize(html);
    expect(clean.match(/x/g)).toHaveLength(1_000);
    expect(tagsIn(clean)).toBeLessThan(200 * 1_000);
    expect(depthOf(clean)).toBeLessThanOrEqual(128);
  });

  it('still returns the text, never throws, for input that the parser cannot take', () => {
    for (const html of ['<svg>'.repeat(50_000), '<math><mi>'.repeat(20_000), '<a><b>'.repeat(60_000), '<'.repeat(1e5)])
      expect(typeof sanitize(html)).toBe('string');
  });

  it('never throws on generated deep and wide trees, stays shallow and safe, output linear in input', () => {
    const tag = fc.constantFrom(
      'div',
      'table',
      'td',
      'tr',
      'p',
      'li',
      'ul',
      'b',
      'i',
      'a',
      'span',
      'svg',
      'math',
      'select',
      'blockquote',
      'code',
      'font',
      'nobr',
      'h2',
      'dl',
      'dd',
      'em',
      'noscript',
      'button',
      'object',
    );
    const open = fc
      .tuple(
        tag,
        fc.option(fc.constantFrom('id', 'class', 'onclick', 'href', 'title'), { nil: undefined }),
        fc.nat(9999),
      )
      .map(([name, attribute, n]) => (attribute ? `<${name} ${attribute}="v${n}">` : `<${name}>`));
    const tree = fc.record({
      depth: fc.integer({ min: 0, max: 3_000 }),
      opens: fc.array(open, { minLength: 1, maxLength: 8 }),
      closes: fc.boolean(),
      width: fc.integer({ min: 1, max: 300 }),
      sibling: fc.array(
        fc.oneof(
          open,
          fc.constantFrom(
            'text',
            '</p>',
            '</b>',
            '<!--c-->',
            '<br>',
            '&amp;',
            '<script>s()</script>',
            '<style>p{}</style>',
            '<template><b>t</b></template>',
          ),
        ),
        {
          maxLength: 6,
        },
      ),
    });
    fc.assert(
      fc.property(tree, ({ depth, opens, closes, width, sibling }) => {
        let html = '';
        for (let d = 0; d < depth; d++) html += `${opens[d % opens.length]}t${d}`;
        html += sibling.join('').repeat(width);
        if (closes) html += '</div></table></b>'.repeat(depth);
        const clean = sanitize(html);
        expect(depthOf(clean)).toBeLessThanOrEqual(129);
        expect(clean.length).toBeLessThanOrEqual(20 * html.length + 100);
        expect(unsafeParts(clean)).toEqual([]);
        for (const d of depth > 0 ? [0, depth - 1] : []) expect(clean).toContain(`t${d}`);
      }),
      budget(60),
    );
  }, 120_000);
});
