import type { ResendItem } from '../ledger/ledger.js';
import type { LedgerHour, LedgerRow } from '../ledger/ledger-row.js';

// C0 and C1 controls, DEL, and the bidirectional overrides and isolates that reorder what a
// terminal shows (a slug could otherwise hide or fake the text after it).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what must not reach a terminal.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;
const WIDEST = 40;

/**
 * A field as a terminal may show it: control characters (ESC above all, which starts an escape
 * sequence), bidi controls and backslashes escaped as `\xNN` / `\uNNNN` / `\\`, cut at 40
 * characters. Refused rows' fields are written by whoever sent the request.
 */
export function printable(value: string | number | null | undefined, widest = WIDEST): string {
  if (value === null || value === undefined) return '-';
  const text = String(value).replace(UNPRINTABLE, (char) => {
    if (char === '\\') return '\\\\';
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return text.length > widest ? `${text.slice(0, widest - 1)}…` : text;
}

/** Epoch ms as `2026-11-28 10:02:03` (UTC). */
export const utc = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Rows as aligned columns; each cell already printable. */
function columns(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/**
 * `ledger list`: one line per row, refusals marked as claims. `stillKept` holds the ids of the
 * refusals kept now: a row's `kept` says it was kept when written, not that it still is.
 */
export function rowsText(
  rows: readonly LedgerRow[],
  next: string | undefined,
  stillKept?: ReadonlySet<string>,
): string {
  if (rows.length === 0) return 'No rows match.\n';
  const header = ['RECEIVED (UTC)', 'STATUS', 'CODE', 'EVENT', 'ARTICLE', 'SLUG', 'DELIVERY', 'COPY', 'TENANT', 'NOTE'];
  const body = rows.map((row) => [
    utc(row.receivedAt),
    String(row.status),
    printable(row.code),
    printable(row.event),
    printable(row.articleId),
    printable(row.slug),
    printable(row.deliveryId),
    String(row.copy),
    printable(row.tenant),
    note(row, stillKept),
  ]);
  const more = next ? `\nMore rows: add --cursor ${printable(next, 80)}\n` : '';
  const claims = rows.some((row) => !row.verified)
    ? '\nRefused rows show what the request claimed (unverified).\n'
    : '';
  return `${columns(header, body)}${claims}${more}`;
}

function note(row: LedgerRow, stillKept: ReadonlySet<string> | undefined): string {
  const parts: string[] = [];
  if (!row.verified) parts.push('unverified claim');
  if (row.kept)
    parts.push(!stillKept || stillKept.has(row.id) ? 'kept for recover' : 'no longer kept (recovered or expired)');
  if (row.recoveredFrom) parts.push(`recovered from ${printable(row.recoveredFrom, 80)}`);
  if (row.publishedUrl) parts.push(printable(row.publishedUrl, 80));
  return parts.join('; ');
}

/** `ledger summary`: counts per hour and a total. */
export function hoursText(hours: readonly LedgerHour[]): string {
  if (hours.length === 0) return 'No rows in that time.\n';
  const total = { delivered: 0, refused: 0, rejected: 0, failed: 0 };
  const body = hours.map((hour) => {
    for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += hour[key];
    return [utc(hour.hour).slice(0, 16), ...[hour.delivered, hour.refused, hour.rejected, hour.failed].map(String)];
  });
  body.push(['total', String(total.delivered), String(total.refused), String(total.rejected), String(total.failed)]);
  return columns(['HOUR (UTC)', 'DELIVERED', 'REFUSED', 'REJECTED', 'FAILED'], body);
}

/** `ledger resend`: what to re-send from the dashboard. */
export function resendText(items: readonly ResendItem[]): string {
  if (items.length === 0) return 'Nothing to re-send: every refused article was delivered since.\n';
  const body = items.map((item) => [
    utc(item.refusedAt),
    printable(item.articleId),
    printable(item.slug),
    printable(item.event),
    printable(item.deliveryId),
    `${item.status} ${printable(item.code)}`,
    String(item.refusals),
    item.kept ? 'yes: try `ledger recover`' : 'no',
  ]);
  const header = ['LAST REFUSED (UTC)', 'ARTICLE', 'SLUG', 'EVENT', 'DELIVERY', 'ANSWER', 'REFUSALS', 'KEPT'];
  return `${columns(header, body)}\nRe-send these from the dashboard (their fields are what the refused requests claimed).\n`;
}
