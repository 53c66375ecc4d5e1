import { describe, expect, it } from 'vitest';
import { commentEnd, isLetter, isSpace, rawTextEnd, readTag } from './html-tokens.js';

// The few tokenizer rules boundNesting relies on, as the HTML standard's tokenizer applies them
// (https://html.spec.whatwg.org/#tokenization): where a tag, a comment or raw text ends.

describe('readTag', () => {
  const tag = (html: string) => readTag(html, html.startsWith('</') ? 2 : 1);

  it('reads the name lower case, up to a space, a slash or >', () => {
    expect(tag('<DiV>')).toEqual({ name: 'div', end: 5, hasAttributes: false, selfClosing: false });
    expect(tag('</Td\t>')?.name).toBe('td');
    for (const space of [' ', '\n', '\t', '\f', '\r'])
      expect(tag(`<p${space}x>`)?.name, JSON.stringify(space)).toBe('p');
    expect(tag('<br/>')).toEqual({ name: 'br', end: 5, hasAttributes: false, selfClosing: true });
  });

  it('is self-closing only when the slash comes right before >', () => {
    expect(tag('<br / >')?.selfClosing).toBe(false);
    expect(tag('<g a=b/>')?.selfClosing).toBe(false); // the slash is part of the unquoted value
    expect(tag('<g a="b"/>')?.selfClosing).toBe(true);
    expect(tag('<g / a>')?.selfClosing).toBe(false);
  });

  it('ends after the > that follows the attributes, skipping > inside quoted values', () => {
    const cases: [string, number][] = [
      ['<a href="x>y">z', 14],
      ["<a title='x>y' >z", 16],
      ['<a href=x>y', 10],
      ['<a b c=d>z', 9],
      ['<a b = "c" d>z', 13],
      ['<a =x>z', 6], // a name may start with =
      ['<a b="c"d=e>z', 12],
      ['<a b=>z', 6],
      ['<a b\n=\n"c>"\n>z', 13],
    ];
    for (const [html, end] of cases) {
      expect(tag(html)?.end, html).toBe(end);
      expect(tag(html)?.hasAttributes, html).toBe(true);
    }
  });

  it('is undefined when the text ends inside the tag, as the tokenizer drops such a tag', () => {
    for (const html of ['<a', '<a ', '<a b', '<a b=', '<a b="c', "<a b='c", '<a b=c', '<a b="c" ', '<a/'])
      expect(tag(html), html).toBeUndefined();
  });
});

describe('commentEnd', () => {
  it('ends at the first --> or --!>, or at <!--> and <!--->, or at the end of the text', () => {
    const end = (html: string) => commentEnd(html, 0);
    expect(end('<!-->x')).toBe(5);
    expect(end('<!--->x')).toBe(6);
    expect(end('<!--a-->x-->')).toBe(8);
    expect(end('<!--a--!>x-->')).toBe(9);
    expect(end('<!--a-->x--!>')).toBe(8);
    expect(end('<!--a--!>x-->')).toBe(9);
    expect(end('<!--a')).toBe(5);
    expect(end('<!--a--')).toBe(7);
    expect(commentEnd('xx<!--a-->', 2)).toBe(10);
  });
});

describe('rawTextEnd', () => {
  const end = (html: string, name: string) => rawTextEnd(html, html.toLowerCase(), 0, name);

  it('ends at the first end tag of the same name followed by >, /, a space or the end', () => {
    expect(end('a</script>', 'script')).toBe(1);
    expect(end('a</SCRIPT >', 'script')).toBe(1);
    expect(end('a</style/>', 'style')).toBe(1);
    expect(end('a</title', 'title')).toBe(1);
    expect(end('a</scripts></script>', 'script')).toBe(11);
    expect(end('a</textarea\n>', 'textarea')).toBe(1);
    expect(end('a</b>', 'script')).toBe(5);
  });

  it('never ends plaintext', () => {
    expect(end('a</plaintext>b', 'plaintext')).toBe(14);
  });

  it('starts looking at `from`', () => {
    const html = '</xmp>a</xmp>';
    expect(rawTextEnd(html, html, 1, 'xmp')).toBe(7);
    expect(rawTextEnd(html, html, 0, 'xmp')).toBe(0);
  });
});

describe('character classes', () => {
  it('knows ASCII letters and the five HTML spaces only', () => {
    const letters = [...'azAZmQ'].map((c) => c.charCodeAt(0));
    const others = [...'@[`{09-/ '].map((c) => c.charCodeAt(0));
    for (const code of letters) expect(isLetter(code), String.fromCharCode(code)).toBe(true);
    for (const code of [...others, Number.NaN, 0xe9]) expect(isLetter(code), String(code)).toBe(false);
    for (const char of [' ', '\n', '\t', '\f', '\r']) expect(isSpace(char), JSON.stringify(char)).toBe(true);
    for (const char of ['\v', '\u00a0', 'a', '/', '>']) expect(isSpace(char), JSON.stringify(char)).toBe(false);
  });
});
