import { fromHtml } from 'hast-util-from-html';

interface Node {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: Node[];
}

const ELEMENTS_NEVER_ALLOWED = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'object',
  'embed',
  'svg',
  'math',
  'form',
  'base',
  'meta',
  'link',
  'template',
  'noscript',
  'textarea',
  'select',
  'button',
]);
// Attributes a browser follows. `action` counts only on a form, which is flagged on its own.
const URL_PROPERTIES = new Set(['href', 'src', 'xLinkHref', 'formAction', 'srcSet', 'poster', 'data', 'background']);
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'irc', 'ircs', 'xmpp']);

/**
 * The scheme a browser's URL parser finds: leading C0 controls and spaces stripped, tabs and
 * newlines removed anywhere, then letters, digits, `+`, `-`, `.` before a colon, starting with a
 * letter. Anything else is a relative URL.
 */
function schemeOf(url: string): string | undefined {
  let start = 0;
  while (start < url.length && url.charCodeAt(start) <= 0x20) start++;
  const text = [...url.slice(start)].filter((char) => !'\t\n\r'.includes(char)).join('');
  return /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
}

/**
 * What a browser would find dangerous in sanitized HTML, parsed again the way a browser parses
 * it: a forbidden element, an event-handler or style attribute, a URL with a scheme that runs
 * code. Empty when the HTML is safe to put in a page.
 */
export function unsafeParts(html: string): string[] {
  const found: string[] = [];
  const visit = (node: Node) => {
    if (node.type === 'element' && node.tagName) {
      if (ELEMENTS_NEVER_ALLOWED.has(node.tagName)) found.push(`<${node.tagName}>`);
      for (const [name, value] of Object.entries(node.properties ?? {})) {
        if (/^on/i.test(name)) found.push(`${node.tagName}[${name}]`);
        if (name === 'style') found.push(`${node.tagName}[style]`);
        const text = Array.isArray(value) ? value.join(' ') : String(value);
        const scheme = URL_PROPERTIES.has(name) ? schemeOf(text) : undefined;
        if (scheme !== undefined && !SAFE_SCHEMES.has(scheme)) found.push(`${node.tagName}[${name}=${text}]`);
      }
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(fromHtml(html, { fragment: true }) as Node);
  return found;
}
