import { describe, expect, it } from 'vitest';
import { loadHtmlSanitizer, sanitizeHtml } from 'webhook-cms-receiver/publish';
import { unsafeParts } from './unsafe-html.js';
import { VECTORS } from './xss-vectors.js';

describe('sanitizeHtml', () => {
  it('is checked by a detector that finds the danger in every raw vector', () => {
    // Harmless to an HTML parser in a fragment: the first is aimed at filters that delete
    // `<script>` from the text, the second needs a whole document.
    const harmlessParsed = ['<scr<script>ipt>alert(1)</scr</script>ipt>', '<body onload=alert(1)>'];
    for (const vector of VECTORS.filter((v) => !harmlessParsed.includes(v)))
      expect(unsafeParts(vector), vector).not.toEqual([]);
  });

  it.each(VECTORS)('leaves nothing that runs code: %s', async (vector) => {
    const clean = await sanitizeHtml(vector);
    expect(unsafeParts(clean)).toEqual([]);
    // Outside quoted attribute values (a title may quote any text): no code-bearing markup at all.
    expect(clean.replace(/"[^"]*"/g, '""')).not.toMatch(
      /<script|javascript:|vbscript:|onerror|onload|onclick|onfocus|ontoggle|onmouseover/i,
    );
    expect(await sanitizeHtml(clean)).toBe(clean);
  });

  it('keeps an article’s content as it was written', async () => {
    const article =
      '<h2 id="intro">Intro</h2><p>Read <a href="https://example.com/guide" title="Guide">the guide</a> and ' +
      '<a href="/articles/other">this one</a>.</p><ul><li><strong>Bold</strong> <em>text</em></li></ul>' +
      '<img src="https://cdn.example.com/a.png" alt="Chart"><blockquote>Quote</blockquote>' +
      '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>' +
      '<table><thead><tr><th>A</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>';
    expect(await sanitizeHtml(article)).toBe(
      '<h2 id="user-content-intro">Intro</h2><p>Read <a href="https://example.com/guide" title="Guide">the guide</a> and ' +
        '<a href="/articles/other">this one</a>.</p><ul><li><strong>Bold</strong> <em>text</em></li></ul>' +
        '<img src="https://cdn.example.com/a.png" alt="Chart"><blockquote>Quote</blockquote>' +
        '<pre><code class="language-ts">const a = 1 &#x3C; 2;</code></pre>' +
        '<table><thead><tr><th>A</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>',
    );
  });

  it('removes scripts with their text, and the text of styles', async () => {
    expect(await sanitizeHtml('<p onclick="steal()">Hi<script>steal()</script></p>')).toBe('<p>Hi</p>');
    expect(await sanitizeHtml('<style>body{display:none}</style><p>a</p>')).toBe('<p>a</p>');
  });

  it('points in-page links at the prefixed ids, so a table of contents still works', async () => {
    expect(await sanitizeHtml('<a href="#intro">Intro</a><a href="#">Top</a><h2 id="intro">Intro</h2>')).toBe(
      '<a href="#user-content-intro">Intro</a><a href="#">Top</a><h2 id="user-content-intro">Intro</h2>',
    );
  });

  it('takes a schema of hast-util-sanitize in place of the default', async () => {
    const { defaultSchema } = await import('hast-util-sanitize');
    const options = { schema: { ...defaultSchema, clobberPrefix: '' } };
    expect(await sanitizeHtml('<h2 id="intro">x</h2><a href="#intro">y</a>', options)).toBe(
      '<h2 id="intro">x</h2><a href="#intro">y</a>',
    );
    expect(await sanitizeHtml('<img src=x onerror=alert(1)>', options)).toBe('<img src="x">');
  });

  it('loads once and then sanitizes synchronously', async () => {
    const sanitize = await loadHtmlSanitizer();
    expect(sanitize('<b onmouseover=alert(1)>b</b>')).toBe('<b>b</b>');
    expect(sanitize('')).toBe('');
  });
});
