import { fromHtml } from 'hast-util-from-html';
import { describe, expect, it } from 'vitest';
import { boundNesting, NESTING_LIMIT, textOnly } from './bound-nesting.js';

// The pass before the parser (bound-nesting.ts) against the parser itself
// (hast-util-from-html, the one sanitizeHtml uses): it must drop nothing from input the parser
// keeps shallow, and drop enough from input the parser would nest deep. Each pattern leans on one
// of the parser's rules the pass copies (a <p> closes an open <p>, an <li> stops at its list…).

interface Node {
  type: string;
  children?: Node[];
}

/** Deepest element nesting of the tree the parser builds from `html`. */
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

const count = (text: string, part: string) => text.split(part).length - 1;

describe('input the parser keeps shallow passes unchanged', () => {
  // [before, repeated 300 times, after]: the parser closes each repetition's elements itself.
  const shallow: [string, string, string][] = [
    ['', '<p>x', ''],
    ['<ul>', '<li>x', '</ul>'],
    ['<ul>', '<li><span>x', '</ul>'],
    ['<dl>', '<dd><span>x<dt><span>y', '</dl>'],
    ['<table><tr>', '<td>x', '</table>'],
    ['<table><tr>', '<th><span>x', '</table>'],
    ['<dl>', '<dt>x<dd>y', '</dl>'],
    ['<table>', '<tr><td>x<th>y', '</table>'],
    ['<table>', '<tbody><tr><td>x<thead><tr><td>y<tfoot><tr><td>z', '</table>'],
    ['<select>', '<option>x', '</select>'],
    ['<table>', '<tfoot>x', '</table>'],
    ['<table>', '<thead>x<tbody>y', '</table>'],
    ['<table>', '<tbody>x<tfoot>y', '</table>'],
    ['', '<h1>x<h2>y<h6>z', ''],
    ['', '<a href="#">x', ''],
    ['', '<a href="#"><span>x', ''],
    ['', '<nobr>x', ''],
    ['', '<button>x', ''],
    ['', '<b>x</b><i>y</i>', ''],
    ['', '<br/><img src=x><hr><input>x', ''],
    ['', '<svg><circle/><path/></svg>', ''],
    ['', '<svg/><p>x<math/><p>y', ''],
    ['', '<script>if (a<b) x()</script><style>p{}</style><title><b>t</title>', ''],
    ['', '<textarea><p>x</textarea>', ''],
    ['', '<!--c--><!x><?x></ x></>< x', ''],
    ['', '<p><b>x</b>', ''],
    ['', '<p><b>x<p></b>', ''],
    // A <tbody> closes the open one past a <colgroup> or <caption> the parser put beside it.
    ['<table>', '<tbody><colgroup>', '</table>'],
    ['<table>', '<tbody><caption>y', '</table>'],
  ];

  it.each(shallow)('%s(%s)×300%s', (before, part, after) => {
    const html = before + part.repeat(300) + after;
    expect(depthOf(html)).toBeLessThan(NESTING_LIMIT);
    expect(boundNesting(html)).toBe(html);
  });

  it('keeps exactly the limit of nested elements, and drops the start and end tags past it', () => {
    const nested = (n: number) => `${'<div>'.repeat(n)}x${'</div>'.repeat(n)}`;
    expect(boundNesting(nested(NESTING_LIMIT))).toBe(nested(NESTING_LIMIT));
    expect(boundNesting(nested(NESTING_LIMIT + 2))).toBe(nested(NESTING_LIMIT));
    // Void elements open nothing, so they stay however deep they are.
    const voids = `${'<div>'.repeat(NESTING_LIMIT + 2)}<br><img src=x>x`;
    expect(boundNesting(voids)).toBe(`${'<div>'.repeat(NESTING_LIMIT)}<br><img src=x>x`);
  });
});

describe('input the parser would nest deep loses tags, never text', () => {
  // Each repetition stays open inside the previous one, or opens a new level the pass must count.
  const deep = [
    '<div><p>x',
    '<ul><li>x',
    '<li>x<ul>',
    '<li>x<ol>',
    '<li>x<menu>',
    '<option><div>x',
    '<dl><dd>x<dt>y',
    '<p>x<table><tr><td>',
    '<table><tr><td>x<td>y<tr><td>z',
    '<object><p>x',
    '<math><mi>x',
    '<div/>x',
    '<span/>x',
    '<code>x</p>',
    '<i>x<div>',
    '<h1><div>x',
    '<select><optgroup>x',
    '<svg><td>x',
    '<table><tbody><tr><td>x',
    '<svg><style><g>x',
  ];

  it.each(deep)('%s×600', (part) => {
    const html = part.repeat(600);
    const bounded = boundNesting(html);
    expect(depthOf(html)).toBeGreaterThan(2 * NESTING_LIMIT);
    // The parser adds elements the pass does not count (a table's <tbody>): within twice the limit.
    expect(depthOf(bounded)).toBeLessThanOrEqual(2 * NESTING_LIMIT);
    expect(count(bounded, 'x')).toBe(600);
  });

  // Tables inside a scoped element: the inner <a>, <button> or <nobr> closes nothing outside
  // its cell (fewer repetitions: the parser's own recursion is what overflows here).
  it.each(['<a href="#"><table><tr><td>x', '<button><table><tr><td>x', '<nobr><table><tr><td>x'])('%s×150', (part) => {
    const bounded = boundNesting(part.repeat(150));
    expect(depthOf(bounded)).toBeLessThanOrEqual(2 * NESTING_LIMIT);
    expect(count(bounded, 'x')).toBe(150);
  });

  // Here the pass keeps as many elements open as the parser nests (in the last, the cell and row
  // it keeps open stand for the <tbody> and <tr> the parser adds): the bounded tree is exactly
  // the limit deep, neither deeper nor cut shorter.
  it.each(['<div><p>x', '<option><div>x', '<option><optgroup>x', '<table><tbody><tr><td>x', '<table><td>x<tr><td>y'])(
    '%s×300 comes out exactly the limit deep',
    (part) => {
      const html = part.repeat(300);
      expect(depthOf(html)).toBeGreaterThan(2 * NESTING_LIMIT);
      expect(depthOf(boundNesting(html))).toBe(NESTING_LIMIT);
    },
  );
});

describe('formatting elements left open', () => {
  it('keeps the first 8 left open, then drops formatting start tags and keeps their text', () => {
    const bounded = boundNesting('<p><b>x'.repeat(12));
    expect(count(bounded, '<b>')).toBe(8);
    expect(count(bounded, 'x')).toBe(12);
    expect(count(bounded, '<p>')).toBe(12);
  });

  it('counts a formatting element closed by a block end tag or a new block as left open', () => {
    for (const [part, tag] of [
      ['<div><i>x</div>', '<i>'],
      ['<li><em>x', '<em>'],
      ['<p><font>x<p>', '<font>'],
    ])
      expect(count(boundNesting(part!.repeat(12)), tag!), part).toBe(8);
  });

  it('ignores end tags of formatting elements neither open nor left open', () => {
    const html = `<p><b>x<p></b></b></b>${'<p><i>y'.repeat(12)}`;
    expect(count(boundNesting(html), '<i>')).toBe(8);
  });

  it('does not count formatting elements inside svg or math, which the parser does not re-open', () => {
    const html = '<svg><b>x</svg>'.repeat(20);
    expect(boundNesting(html)).toBe(html);
  });

  it('drops the end tags of the start tags it dropped, and counts the others as closing one left open', () => {
    // Two <b> dropped, in the last two paragraphs: the first </b> is the last one's and goes;
    // the next two close two left open, so an <i> may open again.
    const bounded = boundNesting(`${'<p><b>x'.repeat(10)}</b></b></b><i>y</i>`);
    expect(bounded).toBe(`${'<p><b>x'.repeat(8)}<p>x<p>x</b></b><i>y</i>`);
  });

  it('drops the end tags of start tags dropped deep in the tree, not only at the top level', () => {
    const bounded = boundNesting(`<div><section>${'<p><b>x'.repeat(10)}</b></b></b><i>y</i></section></div>`);
    expect(bounded).toBe(`<div><section>${'<p><b>x'.repeat(8)}<p>x<p>x</b></b><i>y</i></section></div>`);
  });
});

describe('textOnly', () => {
  it('keeps the text and drops every tag, comment, raw text and unfinished tag', () => {
    expect(textOnly('<p class="a">one</p><!--c--><script>s()</script> 1 < 2 <b>two</b></p><!x>3<? y>')).toBe(
      'one 1 &lt; 2 two3',
    );
    expect(textOnly('a<b title="unfinished')).toBe('a');
    expect(textOnly('a</b')).toBe('a');
    expect(textOnly('<b title="unfinished')).toBe('');
    expect(textOnly('<!--a>b-->c')).toBe('c');
    // `</` and no letter starts a bogus comment, which ends at the first >, quotes or not.
    expect(textOnly('a</ x="b>c">d<!x')).toBe('ac">d');
    expect(boundNesting('a</ x')).toBe('a</ x');
    expect(textOnly('tail')).toBe('tail');
  });
});
