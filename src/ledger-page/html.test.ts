import { describe, expect, it } from 'vitest';
import { escapeHtml, html, MAX_SHOWN_CHARS, SafeHtml, shown } from './html.js';

describe('escaping', () => {
  it('turns the five characters that end text or an attribute into entities', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
  });

  it('escapes every interpolated value, in text and in attributes', () => {
    const vector = '"><img src=x onerror=alert(1)>';
    const out = html`<td title="${vector}">${'</style><svg onload=alert(1)>'}</td>`.markup;
    expect(out).toBe(
      '<td title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&lt;/style&gt;&lt;svg onload=alert(1)&gt;</td>',
    );
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<svg');
  });

  it('keeps nested markup, joins lists and drops null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${[html`<br>`, '<br>']}${null}${undefined}${false}${0}</p>`.markup).toBe(
      '<p><b>&lt;i&gt;</b><br>&lt;br&gt;0</p>',
    );
    // Only a SafeHtml passes as markup: an object that merely looks like one is text.
    expect(html`${{ markup: '<script>' }}`.markup).toBe('[object Object]');
    expect(html`${new SafeHtml('<hr>')}`.markup).toBe('<hr>');
  });

  it('leaves inert text as it is: template braces, U+2028, javascript: URLs', () => {
    expect(escapeHtml('{{7*7}}\u2028javascript:alert(1)')).toBe('{{7*7}}\u2028javascript:alert(1)');
  });

  it('cuts a very long value and says how much it left out', () => {
    expect(shown('short')).toBe('short');
    const long = 'a'.repeat(MAX_SHOWN_CHARS + 5000);
    expect(shown(long)).toBe(`${'a'.repeat(MAX_SHOWN_CHARS)}… (5000 more characters)`);
  });
});
