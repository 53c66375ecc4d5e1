import type { ResendItem } from '../ledger/ledger.js';
import type { LedgerHour, LedgerRow } from '../ledger/ledger-row.js';
import { html, MAX_SHOWN_CHARS, SafeHtml, shown } from './html.js';
import { type PageFilters, type PageRequest, pageHref } from './page-query.js';
import { PAGE_STYLE } from './page-style.js';
import { summaryChart } from './summary-chart.js';

/** What the page shows, read from the ledger for one request. */
export interface PageData {
  rows: readonly LedgerRow[];
  next?: string | undefined;
  hours: readonly LedgerHour[];
  /** The span `hours` covers, epoch ms. */
  from: number;
  to: number;
  resend: readonly ResendItem[];
  keepRefused: boolean;
}

const time = (ms: number): string => {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? `${date.toISOString().slice(0, 19).replace('T', ' ')}Z` : String(ms);
};
/** A row's value as text, `—` when absent; every value goes through the escaping template. */
const text = (value: unknown): string =>
  value === null || value === undefined || value === '' ? '—' : shown(String(value));

/** A whole document around a body: the one stylesheet (allowed by its hash), no script. */
export function pageDocument(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${new SafeHtml(PAGE_STYLE)}</style></head><body>${body}</body></html>`
    .markup;
}

/** A short message as a page: for 403, 500 and 503 answers, nothing from the ledger in it. */
export function messagePage(title: string, message: string): string {
  return pageDocument(title, html`<h1>${title}</h1><p>${message}</p>`);
}

function filtersForm(filters: PageFilters): SafeHtml {
  const statuses = ['', '2xx', '4xx', '5xx', '401', '403'];
  if (filters.status && !statuses.includes(filters.status)) statuses.push(filters.status);
  const options = statuses.map(
    (value) =>
      html`<option value="${value}"${filters.status === value ? html` selected` : ''}>${value || 'any'}</option>`,
  );
  const field = (name: keyof PageFilters, label: string, hint = '') =>
    html`<label>${label}<input name="${name}" value="${filters[name]}" placeholder="${hint}"></label>`;
  return html`<form class="filters" method="get" action="">
<label>Answer<select name="status">${options}</select></label>
${field('event', 'Event', 'article.sync')}${field('article', 'Article id')}${field('tenant', 'Tenant')}${field('since', 'Since', '24h, 7d, 2026-11-28T10:00Z')}
${filters.delivery ? html`<input type="hidden" name="delivery" value="${filters.delivery}">` : ''}
<button type="submit">Filter</button> <a href="?">Clear</a></form>`;
}

/** A value as a link to the rows that share it; a value too long to be a real id stays text. */
function filterLink(name: 'article' | 'delivery', value: string | null): SafeHtml | string {
  if (!value) return '—';
  if (value.length > MAX_SHOWN_CHARS) return shown(value);
  return html`<a href="${pageHref({ [name]: value })}">${value}</a>`;
}

function rowMarkup(row: LedgerRow): SafeHtml {
  const label = row.verified
    ? html`<span class="label verified">verified</span>`
    : html`<span class="label unverified-label">unverified (claimed)</span>`;
  const article = filterLink('article', row.articleId);
  const delivery = filterLink('delivery', row.deliveryId);
  const note = [
    row.kept ? 'kept for recover()' : '',
    row.recoveredFrom ? `recovered from ${shown(row.recoveredFrom)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return html`<tr class="${row.verified ? 'verified' : 'unverified'}">
<td>${time(row.receivedAt)}</td><td>${label}${note && html` <span class="muted">${note}</span>`}</td>
<td>${delivery}</td><td>${text(row.copy)}</td><td>${text(row.event)}</td><td>${article}</td><td>${text(row.slug)}</td>
<td>${text(row.articleStatus)}</td><td>${text(row.status)}</td><td>${text(row.code)}</td><td>${text(row.tenant)}</td>
<td>${text(row.tokenIndex)}</td><td>${text(`${row.durationMs} ms`)}</td><td>${text(row.publishedUrl)}</td></tr>`;
}

function rowsTable(data: PageData, request: PageRequest): SafeHtml {
  if (data.rows.length === 0) return html`<p class="muted">No request matches these filters.</p>`;
  const older = data.next
    ? html`<nav class="pages"><a rel="next" href="${pageHref({ ...request.filters, cursor: data.next })}">Older requests</a></nav>`
    : '';
  return html`<table id="rows"><thead><tr><th>Received (UTC)</th><th>Verified</th><th>Delivery id</th><th>Copy</th><th>Event</th><th>Article id</th><th>Slug</th><th>Article status</th><th>Answer</th><th>Code</th><th>Tenant</th><th>Token</th><th>Duration</th><th>published_url</th></tr></thead>
<tbody>${data.rows.map(rowMarkup)}</tbody></table>${older}`;
}

function resendList(data: PageData): SafeHtml {
  const recover = data.keepRefused
    ? html`<form method="post" action="?action=recover"><button type="submit" id="recover">Recover kept refusals</button> <span class="muted">verifies each kept 401 and 403 with the tokens the receiver has now and processes those that verify, once.</span></form>`
    : html`<p class="muted">Refused requests are not kept (the ledger was made without <code>keepRefused: true</code>), so there is nothing to recover: re-send these from the dashboard.</p>`;
  const items = data.resend.map((item) => {
    const article = filterLink('article', item.articleId);
    return html`<tr><td>${article}</td><td>${text(item.deliveryId)}</td><td>${text(item.slug)}</td><td>${text(item.event)}</td><td>${time(item.refusedAt)}</td><td>${text(`${item.status} ${item.code}`)}</td><td>${text(item.refusals)}</td><td>${item.kept ? 'yes' : 'no'}</td></tr>`;
  });
  const table =
    items.length === 0
      ? html`<p class="muted">None: every refused article was delivered since.</p>`
      : html`<table id="resend"><thead><tr><th>Article id (claimed)</th><th>Delivery id (claimed)</th><th>Slug (claimed)</th><th>Event</th><th>Last refused (UTC)</th><th>Answer</th><th>Refusals</th><th>Kept</th></tr></thead><tbody>${items}</tbody></table>`;
  return html`<h2>Articles to re-send from the dashboard</h2>${recover}${table}`;
}

function recoveredNotice(request: PageRequest): SafeHtml | string {
  const counts = request.recovered;
  if (!counts) return '';
  return html`<p class="notice" id="recovered" role="status">Recover: ${counts.recovered} recovered and processed, ${counts.failed} failed (kept for the next try), ${counts.unverified} still unverified (re-send them from the dashboard).</p>`;
}

/** The page: the recover notice, outcomes per hour, the articles to re-send, the filters and the rows. */
export function ledgerView(data: PageData, request: PageRequest, title: string): string {
  const { article } = request.filters;
  const heading = article ? html`History of article ${shown(article)}` : html`Last requests`;
  const back = article || request.cursor ? html` <a href="?">All requests</a>` : '';
  return pageDocument(
    title,
    html`<h1>${title}</h1>${recoveredNotice(request)}
<h2>Outcomes per hour</h2>${summaryChart({ hours: data.hours, from: data.from, to: data.to })}
${resendList(data)}
<h2 id="list">${heading}${back}</h2>${filtersForm(request.filters)}${rowsTable(data, request)}
<p class="muted">Values of unverified rows are what the refused request claimed, shown as text.</p>`,
  );
}
