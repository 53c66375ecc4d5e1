import { boundNesting, NESTING_LIMIT, textOnly } from './bound-nesting.js';
import { flattenDeeperThan, type HastNode, pointFragmentLinks } from './hast-walk.js';

/**
 * Options of {@link sanitizeHtml} and {@link loadHtmlSanitizer}.
 *
 * @example
 * ```ts
 * import { defaultSchema } from 'hast-util-sanitize';
 * // Keep heading ids as they are, so a table of contents' `#section` links still work:
 * const options: SanitizeHtmlOptions = { schema: { ...defaultSchema, clobberPrefix: '' } };
 * ```
 */
export interface SanitizeHtmlOptions {
  /**
   * A `Schema` of `hast-util-sanitize` replacing the default. The default is that package's
   * `defaultSchema` (GitHub's rules: no scripts, styles, iframes, forms or event handlers; links
   * only to http, https, mailto, irc and xmpp; images only from http and https; `id` and `name`
   * prefixed with `user-content-` against DOM clobbering), with the text of `<style>` and
   * `<template>` dropped rather than kept as text, and in-page links (`href="#intro"`) pointed
   * at the prefixed ids so a table of contents still works. Typed loosely so these declarations
   * do not need the optional peer installed.
   */
  schema?: object;
}

/**
 * A loaded sanitizer: synchronous, for a loop over many articles.
 *
 * @example
 * ```ts
 * const sanitize: HtmlSanitizer = await loadHtmlSanitizer();
 * const pages = articles.map((article) => ({ ...article, content_html: sanitize(article.content_html) }));
 * ```
 */
export type HtmlSanitizer = (html: string) => string;

interface Hast {
  fromHtml: (html: string, options: { fragment: boolean }) => unknown;
  sanitize: (tree: never, schema?: never) => unknown;
  toHtml: (tree: never) => string;
  defaultSchema: object;
}

let loading: Promise<Hast> | undefined;

// Imported on first use, so `/publish` loads without them and they stay optional peers. The
// specifiers are literal so bundlers (wrangler, Next.js, Vite) include them in a bundle that
// uses the sanitizer, and the imports sit in a try block so a bundle of `/publish` without
// them still builds: esbuild and webpack treat an import() in a try block as optional.
async function importHast(): Promise<Hast> {
  try {
    // Each `await import()` directly in the try: the form both bundlers recognise.
    const parse = await import('hast-util-from-html');
    const clean = await import('hast-util-sanitize');
    const serialize = await import('hast-util-to-html');
    return {
      fromHtml: parse.fromHtml as Hast['fromHtml'],
      sanitize: clean.sanitize as Hast['sanitize'],
      defaultSchema: clean.defaultSchema,
      toHtml: serialize.toHtml as Hast['toHtml'],
    };
  } catch (cause) {
    loading = undefined;
    throw new Error(
      'sanitizeHtml needs the optional peer dependencies hast-util-from-html, hast-util-sanitize and hast-util-to-html, which could not be loaded. Install them: npm install hast-util-from-html hast-util-sanitize hast-util-to-html',
      { cause },
    );
  }
}

function loadHast(): Promise<Hast> {
  loading ??= importHast();
  return loading;
}

/**
 * Loads the sanitizer once and returns it as a synchronous function. The hast packages are
 * optional peer dependencies of `/publish` imported on first use, which is why this is async;
 * later calls reuse the loaded modules. The function never throws; see {@link sanitizeHtml}
 * for what it does with deep nesting.
 *
 * @example
 * ```ts
 * import { loadHtmlSanitizer } from 'webhook-cms-receiver/publish';
 * const sanitize = await loadHtmlSanitizer(); // once, at start-up
 * const html = sanitize(article.content_html); // then synchronously, per article
 * ```
 */
export async function loadHtmlSanitizer(options: SanitizeHtmlOptions = {}): Promise<HtmlSanitizer> {
  const hast = await loadHast();
  const base = hast.defaultSchema as { strip?: string[]; clobberPrefix?: string };
  const schema = (options.schema ??
    ({ ...base, strip: [...(base.strip ?? []), 'style', 'template'] } as object)) as never;
  const prefix = options.schema ? '' : (base.clobberPrefix ?? '');
  return (html) => {
    const text = String(html ?? '');
    try {
      const tree = hast.fromHtml(boundNesting(text), { fragment: true }) as HastNode;
      flattenDeeperThan(tree, NESTING_LIMIT);
      const clean = hast.sanitize(tree as never, schema) as HastNode;
      pointFragmentLinks(clean, prefix);
      return hast.toHtml(clean as never);
    } catch {
      // Only an input that defeats the bound above gets here (the hast packages recurse per
      // level): its text is still shown, and the delivery is never failed by its HTML.
      return textOnly(text);
    }
  };
}

/**
 * Makes an article's `content_html` safe to put in a page: `<script>`, `<style>`, `<iframe>`,
 * `<object>`, forms, event-handler attributes (`onerror`, `onclick`, …), `style` attributes and
 * `javascript:`/`data:`/`vbscript:` URLs are removed; headings, paragraphs, lists, links,
 * images, tables, code and quotes stay. Built on `hast-util-from-html`, `hast-util-sanitize` and
 * `hast-util-to-html` (install them; optional peers of `/publish`): a parser written in
 * JavaScript, no DOM, so it runs the same on Node, Bun, Deno and Cloudflare Workers.
 *
 * It never throws, whatever the input, and its time and memory grow linearly with the input's
 * length. Nesting is bounded: elements nested more than 128 levels deep are unwrapped (their
 * tags dropped, their text kept in place). Formatting elements (`<b>`, `<i>`, `<code>`,
 * `<font>`…) left unclosed when their block ends are re-opened by the HTML parser in every
 * later block; once 8 have been left open, later formatting tags are dropped (text kept), which
 * keeps that re-opening linear. Should the parser fail anyway, the text of the input is
 * returned without any tag.
 *
 * @example
 * ```ts
 * import { sanitizeHtml } from 'webhook-cms-receiver/publish';
 * const body = await sanitizeHtml('<p onclick="steal()">Hi<script>steal()</script></p>'); // '<p>Hi</p>'
 * ```
 */
export async function sanitizeHtml(html: string, options?: SanitizeHtmlOptions): Promise<string> {
  return (await loadHtmlSanitizer(options))(html);
}
