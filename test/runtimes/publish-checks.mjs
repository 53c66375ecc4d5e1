// Runtime-neutral, like vector-checks.mjs: runs unchanged on Node, Bun, Deno and in a Worker
// bundle. It imports the BUILT `webhook-cms-receiver/publish`, whose sanitizer loads its hast
// peers on first use, and checks that the same input gives the same output everywhere.
import {
  answerForSlug,
  classifyChange,
  contentHash,
  emptySlugHistory,
  isPublic,
  loadHtmlSanitizer,
  recordSlug,
  sanitizeHtml,
} from 'webhook-cms-receiver/publish';
import { describeRuntime } from './vector-checks.mjs';
import { XSS_CORPUS } from './xss-corpus.mjs';

const ARTICLE = {
  id: 'a1',
  title: 'Ten SEO tips — référencement',
  slug: 'ten-seo-tips',
  status: 'published',
  content_markdown: '# Tips',
  content_html: '<h2 id="intro">Intro</h2><p>Read <a href="#intro">more</a>.</p>',
  meta_description: 'Tips.',
  featured_image_url: 'https://cdn.example.com/a.png',
  tags: ['seo'],
  scheduled_at: null,
  published_at: '2026-01-01T00:00:00Z',
};
// SHA-256 of the canonical content fields, computed with node:crypto: every runtime must agree.
const ARTICLE_HASH = '812c8f4eb39c6998b9e34fbc763368652b1ddfd64cbdb246b2c5e5111f722f21';

/** Input → the exact output every runtime must give. */
const SANITIZED = [
  ['<p onclick="steal()">Hi<script>steal()</script></p>', '<p>Hi</p>'],
  ['<img src=x onerror=alert(1)>', '<img src="x">'],
  ['<a href="javascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href=" JaVaScRiPt:alert(1)">x</a><a href="jav&#x09;ascript:alert(1)">y</a>', '<a>x</a><a>y</a>'],
  [
    '<svg onload=alert(1)><script>alert(1)</script></svg><iframe src="https://evil.example"></iframe><p>ok</p>',
    '<p>ok</p>',
  ],
  ['<style>body{display:none}</style><img src="data:image/svg+xml,<svg onload=alert(1)>">', '<img>'],
  [ARTICLE.content_html, '<h2 id="user-content-intro">Intro</h2><p>Read <a href="#user-content-intro">more</a>.</p>'],
  [
    '<table><tr><td>1 &lt; 2</td></tr></table><pre><code class="language-js">a &amp;&amp; b</code></pre>',
    '<table><tbody><tr><td>1 &#x3C; 2</td></tr></tbody></table><pre><code class="language-js">a &#x26;&#x26; b</code></pre>',
  ],
];

/** Deep and adversarial trees: each must come back sanitized, its text kept, on every runtime's stack. */
const DEEP = [
  [
    '390 nested tables',
    `${'<table><tr><td>'.repeat(390)}deep<img src=x onerror=alert(1)>${'</td></tr></table>'.repeat(390)}`,
    'deep',
  ],
  ['20,000 nested divs', `${'<div>'.repeat(20_000)}bottom<script>alert(1)</script>`, 'bottom'],
  ['re-opened formatting elements', Array.from({ length: 2_000 }, (_, i) => `<p><b id=b${i}>x${i}`).join(''), 'x1999'],
];

/**
 * Runs the `/publish` checks of the built package on whatever runtime loaded this module.
 *
 * @example
 * ```js
 * const { runtime, passed, failed, failures } = await runPublishChecks();
 * ```
 */
export async function runPublishChecks() {
  const results = [];
  for (const [input, expected] of SANITIZED)
    results.push(
      await attempt(`sanitizeHtml ${input.slice(0, 40)}`, async () => expectEqual(await sanitizeHtml(input), expected)),
    );
  results.push(
    await attempt(`sanitizeHtml leaves nothing that runs code in ${XSS_CORPUS.length} XSS vectors`, async () => {
      const sanitize = await loadHtmlSanitizer();
      for (const vector of XSS_CORPUS) {
        // Outside quoted attribute values (a title may quote any text): no code-bearing markup.
        const clean = sanitize(vector).replace(/"[^"]*"/g, '""');
        if (/<script|<iframe|<svg|<object|<embed|javascript:|vbscript:|\son[a-z]+=|style=/i.test(clean))
          throw new Error(`${vector} gave ${clean}`);
      }
    }),
  );
  for (const [name, input, kept] of DEEP)
    results.push(
      await attempt(`sanitizeHtml never throws on ${name}`, async () => {
        const clean = await sanitizeHtml(input);
        expectEqual(clean.includes(kept) && !/onerror|<script/i.test(clean), true);
      }),
    );
  results.push(
    await attempt('loadHtmlSanitizer then sanitize synchronously', async () => {
      const sanitize = await loadHtmlSanitizer();
      expectEqual(sanitize('<b onmouseover=alert(1)>b</b>'), '<b>b</b>');
    }),
  );
  results.push(
    await attempt('contentHash (Web Crypto SHA-256)', async () =>
      expectEqual(await contentHash(ARTICLE), ARTICLE_HASH),
    ),
  );
  results.push(
    await attempt('isPublic, classifyChange and answerForSlug', async () => {
      const now = Date.parse('2026-06-01T00:00:00Z');
      expectEqual(isPublic(ARTICLE, { now }), true);
      expectEqual(isPublic({ ...ARTICLE, scheduled_at: '2026-07-01T00:00:00Z' }, { now }), false);
      const renamed = { type: 'article.sync', article: { ...ARTICLE, slug: 'seo-tips' } };
      expectEqual(classifyChange(ARTICLE, renamed, { now }).kind, 'renamed');
      let history = recordSlug(emptySlugHistory(), { type: 'article.sync', article: ARTICLE });
      history = recordSlug(history, renamed);
      const load = () => renamed.article;
      expectEqual(
        JSON.stringify(await answerForSlug(history, 'ten-seo-tips', { now, load })),
        '{"status":301,"location":"seo-tips"}',
      );
      history = recordSlug(history, { type: 'article.trash', article: { id: 'a1', slug: 'seo-tips' } });
      expectEqual(JSON.stringify(await answerForSlug(history, 'ten-seo-tips', { now, load })), '{"status":410}');
    }),
  );
  const failures = results.filter((result) => result !== true);
  return { ...describeRuntime(), passed: results.length - failures.length, failed: failures.length, failures };
}

function expectEqual(actual, expected) {
  if (actual !== expected) throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

async function attempt(name, check) {
  try {
    await check();
    return true;
  } catch (error) {
    return `${name}: ${error?.message ?? error}`;
  }
}
