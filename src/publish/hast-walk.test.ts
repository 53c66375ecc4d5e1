import { fromHtml } from 'hast-util-from-html';
import { toHtml } from 'hast-util-to-html';
import { describe, expect, it } from 'vitest';
import { flattenDeeperThan, type HastNode, pointFragmentLinks } from './hast-walk.js';

// The two walks sanitizeHtml runs over the parsed tree, on trees the parser builds.

const tree = (html: string) => fromHtml(html, { fragment: true }) as HastNode;
const html = (node: HastNode) => toHtml(node as never);

describe('flattenDeeperThan', () => {
  it('unwraps the elements deeper than the limit and keeps their text and comments in order', () => {
    const root = tree('<div>a<p>b<b>c<i>d</i>e<!--f--></b>g</p>h</div><p>i<b>j</b></p>');
    flattenDeeperThan(root, 2);
    expect(html(root)).toBe('<div>a<p>bcde<!--f-->g</p>h</div><p>i<b>j</b></p>');
  });

  it('keeps the elements at the limit itself, and changes nothing in a tree within it', () => {
    const source = '<ul><li><b>x</b></li></ul><p>y</p>';
    const at = tree(source);
    flattenDeeperThan(at, 3);
    expect(html(at)).toBe(source);
    const below = tree(source);
    flattenDeeperThan(below, 2);
    expect(html(below)).toBe('<ul><li>x</li></ul><p>y</p>');
  });

  it('takes nodes without children, as its type allows', () => {
    const root: HastNode = {
      type: 'root',
      children: [{ type: 'element', tagName: 'div', children: [{ type: 'element', tagName: 'br' }, { type: 'text' }] }],
    };
    flattenDeeperThan(root, 1);
    expect(root.children?.[0]?.children).toEqual([{ type: 'text' }]);
  });

  it('keeps only text at a limit of 0', () => {
    const root = tree('<p>a<b>b</b></p>c');
    flattenDeeperThan(root, 0);
    expect(html(root)).toBe('abc');
  });
});

describe('pointFragmentLinks', () => {
  const point = (source: string, prefix = 'user-content-') => {
    const root = tree(source);
    pointFragmentLinks(root, prefix);
    return html(root);
  };

  it('prefixes in-page links of <a> at any depth, once', () => {
    expect(point('<p><em><a href="#intro">x</a></em></p><a href="#a">y</a>')).toBe(
      '<p><em><a href="#user-content-intro">x</a></em></p><a href="#user-content-a">y</a>',
    );
    expect(point('<a href="#user-content-intro">x</a>')).toBe('<a href="#user-content-intro">x</a>');
  });

  it('leaves other links, other elements, a bare # and an empty prefix alone', () => {
    for (const source of [
      '<a href="#">top</a>',
      '<a href="/page#intro">x</a>',
      '<a href="https://example.com/#intro">x</a>',
      '<a>x</a>',
      '<area href="#intro">',
      '<link href="#intro">',
    ])
      expect(point(source), source).toBe(source);
    expect(point('<a href="#intro">x</a>', '')).toBe('<a href="#intro">x</a>');
  });

  it('takes nodes without properties, and an href that is not a string, as its type allows', () => {
    const root: HastNode = {
      type: 'root',
      children: [
        { type: 'element', tagName: 'a' },
        { type: 'element', tagName: 'a', properties: { href: ['#intro'] } },
      ],
    };
    pointFragmentLinks(root, 'user-content-');
    expect(root.children?.[1]?.properties).toEqual({ href: ['#intro'] });
  });
});
