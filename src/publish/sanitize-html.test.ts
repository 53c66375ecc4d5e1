import { describe, expect, it } from 'vitest';
import { loadHtmlSanitizer, sanitizeHtml } from './sanitize-html.js';

// The sanitizer's own choices over the hast packages' defaults, quick enough to run first in the
// mutation run: what it strips beside scripts, what a missing body gives, and the fallback to text.

describe('loadHtmlSanitizer', () => {
  it('drops the text of <style> and <template> as well as of <script>', async () => {
    const sanitize = await loadHtmlSanitizer();
    expect(sanitize('<template><b>t</b></template><style>p{}</style><script>s()</script><p>x</p>')).toBe('<p>x</p>');
  });

  it('answers an empty string for a missing body, and the text of a number', async () => {
    const sanitize = await loadHtmlSanitizer();
    expect(sanitize(null as never)).toBe('');
    expect(sanitize(undefined as never)).toBe('');
    expect(sanitize(42 as never)).toBe('42');
  });

  it('returns the text without tags when the parser cannot take the input', async () => {
    // Nested foreign content the nesting bound lets through still overflows the hast packages.
    const sanitize = await loadHtmlSanitizer();
    expect(sanitize(`${'<svg><g>'.repeat(3_000)}kept<b>text</b>`)).toBe('kepttext');
  });

  it('unwraps elements deeper than the limit after parsing', async () => {
    // The parser adds a <tbody> to each table, which the pass before it does not count.
    const html = `${'<table><tr><td>'.repeat(200)}deep`;
    const clean = await sanitizeHtml(html);
    expect(clean).toContain('deep');
    expect(clean.split('<table>').length - 1).toBeLessThanOrEqual(128 / 4 + 1);
  });

  it('prefixes in-page links only with the default schema', async () => {
    const { defaultSchema } = await import('hast-util-sanitize');
    const link = '<a href="#intro">x</a>';
    expect(await sanitizeHtml(link)).toBe('<a href="#user-content-intro">x</a>');
    expect(await sanitizeHtml(link, { schema: defaultSchema })).toBe(link);
  });
});

describe('the fallback to text', () => {
  it('returns the text without tags when the stack runs out inside the hast packages', async () => {
    const sanitize = await loadHtmlSanitizer();
    const html = `${'<div>'.repeat(120)}deep<b>text</b>`;
    const full = sanitize(html);
    // Called ever higher above a full stack: first nothing runs (the fallback needs a little
    // stack too), then the hast packages overflow and the text comes back, then the full answer.
    const answers = new Set<string>();
    let height = 0;
    const descend = (depth: number): number => {
      let bottom = depth;
      try {
        bottom = descend(depth + 1);
      } catch {
        // the bottom of the stack
      }
      if (bottom - depth < 20_000 && !answers.has(full)) {
        try {
          answers.add(sanitize(html));
          height = bottom - depth;
        } catch {
          // too deep for the fallback itself
        }
      }
      return bottom;
    };
    descend(0);
    expect(height).toBeGreaterThan(0);
    expect([...answers].sort()).toEqual([full, 'deeptext'].sort());
  });
});
