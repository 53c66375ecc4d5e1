import { describeValue } from '../internal/describe.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../receiver/logger.js';
import { receiverLog } from '../receiver/logger.js';
import { FilterError, listQuery, readPageRequest } from './page-query.js';
import { ledgerView, messagePage, type PageData } from './page-view.js';
import { type PageAnswer, pageResponse } from './security-headers.js';
import { isSameOriginPost } from './same-origin.js';

/**
 * Options of {@link ledgerPage}; `Context` is what your host passes the handler beside the request.
 *
 * @example
 * ```ts
 * // sessionOf: your own login's lookup (a signed cookie, a session store).
 * const options: LedgerPageOptions = { authorize: async (request) => (await sessionOf(request))?.admin === true, pageSize: 100 };
 * ```
 */
export interface LedgerPageOptions<Context = unknown> {
  /**
   * Required: whether this request may see the ledger (and press Recover). Check your own
   * session or login here, from the request or the `context` you hand the page (Hono's `c`,
   * the Node request); only `true` shows the page: anything else answers 403 with nothing
   * from the ledger, a throw 500. There is no open default: the ledger holds your articles'
   * metadata and what refused requests claimed.
   */
  authorize: (request: Request, context: Context | undefined) => boolean | Promise<boolean>;
  /** The page's title and heading (default `Webhook deliveries`). */
  title?: string;
  /** Rows per page (default 50, at most 1000). */
  pageSize?: number;
  /** Hours the outcomes chart covers, back from now (default 24, at most 744). */
  chartHours?: number;
  /** Where failures of `authorize` and of the ledger are logged: as `createReceiver`'s `logger` (default `console`). */
  logger?: Logger | false;
  /** The clock, epoch ms (default `Date.now`). */
  now?: () => number;
}

const HOUR_MS = 3_600_000;
const ALLOW = 'GET, HEAD, POST';

function checkOptions(options: LedgerPageOptions<never> | undefined): void {
  const authorize = (options as { authorize?: unknown } | undefined)?.authorize;
  if (typeof authorize !== 'function')
    throw new TypeError(
      `ledgerPage: options.authorize is required and must be a function, got ${describeValue(authorize)}. ` +
        'Pass authorize: (request) => your own login check (true to show the page); the page has no open default.',
    );
}

/** A whole number option within bounds, or its default. */
function bounded(value: unknown, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    throw new TypeError(
      `ledgerPage: options.${name} must be a whole number from 1 to ${max}, got ${describeValue(value)}.`,
    );
  return value;
}

/**
 * The delivery ledger as a page in your app: outcomes per hour (an SVG chart drawn on the
 * server), the articles to re-send from the dashboard with a Recover button, and the last
 * requests with filters (answer, event, article, tenant, since), each article's history and
 * older pages. A Fetch handler: mount it at any path of a Fetch-style app (Hono, Next.js route
 * handlers, Workers, Bun, Deno); `webhook-cms-receiver/node` has the same for Node and Express.
 *
 * `authorize` is required. The page runs no script and sets a strict Content-Security-Policy;
 * every value is rendered as text (a refused request's claims are written by its sender); a
 * POST from another site is refused (403), GET changes nothing, a ledger that fails answers
 * 503 without detail (the error goes to the log).
 *
 * @example
 * ```ts
 * import { createReceiver, ledgerPage, memoryLedger } from 'webhook-cms-receiver';
 * const ledger = memoryLedger({ keepRefused: true });
 * const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, ledger });
 * // Hono, behind the app's login middleware: `c` is handed on to authorize.
 * const page = ledgerPage(ledger, { authorize: (_request, c: Context) => c?.get('user')?.role === 'admin' });
 * app.all('/admin/deliveries', (c) => page(c.req.raw, c));
 * ```
 */
export function ledgerPage<Context = unknown>(
  ledger: Ledger,
  options: LedgerPageOptions<Context>,
): (request: Request, context?: Context) => Promise<Response> {
  checkOptions(options);
  const { authorize } = options;
  const title = options.title ?? 'Webhook deliveries';
  const limit = bounded(options.pageSize, 50, 1000, 'pageSize');
  const chartHours = bounded(options.chartHours, 24, 744, 'chartHours');
  const now = options.now ?? Date.now;
  const log = receiverLog(options.logger);
  const message = (status: number, heading: string, text: string, headers?: Record<string, string>): PageAnswer => ({
    status,
    body: messagePage(heading, text),
    ...(headers ? { headers } : {}),
  });

  async function allowed(request: Request, context: Context | undefined): Promise<PageAnswer | undefined> {
    try {
      if ((await authorize(request, context)) === true) return undefined;
      return message(403, 'Forbidden', 'You are not allowed to see this page.');
    } catch (error) {
      log.error('the ledger page: authorize threw; answered 500', { err: error });
      return message(500, 'Error', 'The check of who may see this page failed; the error is in the server log.');
    }
  }

  async function view(request: Request): Promise<PageAnswer> {
    let pageRequest: ReturnType<typeof readPageRequest>;
    let query: ReturnType<typeof listQuery>;
    const at = now();
    try {
      pageRequest = readPageRequest(new URL(request.url).searchParams);
      query = listQuery(pageRequest, { now: at, limit });
    } catch (error) {
      if (error instanceof FilterError) return message(400, 'Bad filter', error.message);
      throw error;
    }
    const from = at - (chartHours - 1) * HOUR_MS;
    const tenant = pageRequest.filters.tenant || undefined;
    const scope = tenant === undefined ? {} : { tenant };
    try {
      const [page, hours, resend] = await Promise.all([
        ledger.list(query),
        ledger.summary({ since: from, until: at, ...scope }),
        ledger.resend(scope),
      ]);
      const data: PageData = { ...page, hours, from, to: at, resend, keepRefused: ledger.keepRefused === true };
      return { status: 200, body: ledgerView(data, pageRequest, title) };
    } catch (error) {
      log.error('the ledger page could not read the ledger; answered 503', { err: error });
      return message(
        503,
        'Ledger unavailable',
        'The ledger could not be read just now; the error is in the server log.',
      );
    }
  }

  async function recover(): Promise<PageAnswer> {
    try {
      const counts = await ledger.recover();
      const search = new URLSearchParams({
        recovered: String(counts.recovered),
        failed: String(counts.failed),
        unverified: String(counts.unverified),
      });
      // Relative: back to this page's own path, wherever it is mounted (RFC 9110 §10.2.2).
      return { status: 303, body: '', headers: { location: `?${search}` } };
    } catch (error) {
      log.error('the ledger page: recover() failed; answered 503', { err: error });
      return message(503, 'Recover failed', 'Recovering the kept refusals failed; the error is in the server log.');
    }
  }

  async function answer(request: Request, context: Context | undefined): Promise<PageAnswer> {
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST')
      return message(405, 'Method not allowed', 'This page answers GET, and POST from its own form.', { allow: ALLOW });
    if (method === 'POST' && !isSameOriginPost(request))
      return message(403, 'Forbidden', 'A POST from another site is refused: press the button on this page itself.');
    const refused = await allowed(request, context);
    if (refused) return refused;
    if (method !== 'POST') return view(request);
    const action = new URL(request.url).searchParams.get('action');
    if (action === 'recover') return recover();
    return message(400, 'Unknown action', "The page's only POST action is Recover.");
  }

  return async (request, context) => {
    const method = request.method.toUpperCase();
    try {
      return await pageResponse(await answer(request, context), method);
    } catch (error) {
      log.error('the ledger page failed; answered 500', { err: error });
      return pageResponse(message(500, 'Error', 'The page failed; the error is in the server log.'), method);
    }
  };
}
