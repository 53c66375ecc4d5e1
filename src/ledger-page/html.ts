/**
 * Markup built from templates whose every interpolated value is escaped unless it is already
 * markup: row values are attacker-controlled (a refused request's slug is whatever its sender
 * wrote), so escaping is the default and raw text cannot reach the page by forgetting a call.
 */
export class SafeHtml {
  /** Markup that is already escaped, or written by this module's templates. */
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text safe in an element's content and in a quoted attribute's value: `&`, `<`, `>`, `"` and
 * `'` become entities. Everything else (U+2028, `{{…}}`, control characters) is inert in HTML.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** One interpolated value: markup as is, a list joined, nothing for null, undefined and false, else escaped text. */
function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * A template tag for markup: the literal parts are kept, every value is escaped (attributes
 * must be written double-quoted). Nest templates to compose markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) markup += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(markup);
}

/** Shown of one value at most: a refused request may claim a megabyte-long slug. */
export const MAX_SHOWN_CHARS = 300;

/** A value cut to {@link MAX_SHOWN_CHARS}, saying how much was left out. */
export function shown(text: string): string {
  if (text.length <= MAX_SHOWN_CHARS) return text;
  return `${text.slice(0, MAX_SHOWN_CHARS)}… (${text.length - MAX_SHOWN_CHARS} more characters)`;
}
