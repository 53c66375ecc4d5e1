import { type Ledger, type LedgerPageOptions, ledgerPage as fetchLedgerPage } from 'webhook-cms-receiver';
import { logUnexpected } from 'webhook-cms-receiver/adapter-kit';
import type { NodeRequest, NodeResponse } from './node-objects.js';

/**
 * What the Node form of the page reads of a request beyond {@link NodeRequest}: where it is.
 * An `IncomingMessage` or Express's `Request` is one; extend it with what your login adds.
 *
 * @example
 * ```ts
 * type LoggedIn = LedgerPageRequest & { user?: { role: string } };
 * ```
 */
export interface LedgerPageRequest extends NodeRequest {
  url?: string | undefined;
  /** Express: the URL before the mount path was cut off. */
  originalUrl?: string | undefined;
  /** Express: `https` behind a proxy it trusts (`app.set('trust proxy', …)`). */
  protocol?: string | undefined;
  socket?: (NodeRequest['socket'] & { encrypted?: boolean }) | null;
}

/**
 * Options of the Node {@link ledgerPage}: as the Fetch one's, with `authorize` given the Node request.
 *
 * @example
 * ```ts
 * const options: NodeLedgerPageOptions<LoggedIn> = { authorize: (req) => req.user?.role === 'admin' };
 * ```
 */
export interface NodeLedgerPageOptions<Req extends LedgerPageRequest = LedgerPageRequest>
  extends Omit<LedgerPageOptions, 'authorize'> {
  /**
   * Required: whether this request may see the ledger, given the Node request itself (so
   * Express's `req.session`, `req.user`, … are there). `false` answers 403, a throw 500.
   */
  authorize: (req: Req) => boolean | Promise<boolean>;
}

const PAGE_METHODS = ['GET', 'HEAD', 'POST'];

/**
 * The Fetch `Request` the page reads for a Node request: method, URL and headers (the page
 * reads no body). A Host that makes no URL becomes `localhost`: pages still show, and a POST
 * then fails the page's same-origin check.
 */
function fetchRequest(req: LedgerPageRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (!name.startsWith(':')) for (const one of [value ?? []].flat()) headers.append(name, one);
  const path = req.originalUrl ?? req.url ?? '/';
  const origin = `${req.protocol ?? (req.socket?.encrypted ? 'https' : 'http')}://${headers.get('host')}`;
  // The page answers 405 to any other method; Fetch cannot even carry some (TRACE, CONNECT).
  const method = PAGE_METHODS.includes(req.method ?? '') ? req.method : 'OPTIONS';
  return new Request(new URL(path, URL.canParse(origin) ? origin : 'http://localhost'), { method, headers });
}

/**
 * The delivery ledger's page for `node:http` and Express (the Fetch `ledgerPage` of the core,
 * answered on the Node response): mount it behind your login, `authorize` gets the Node
 * request. Mount it with `app.use(path, …)` (Express) so Recover's POST reaches it too; it
 * never calls `next`.
 *
 * @example
 * ```ts
 * import { ledgerPage } from 'webhook-cms-receiver/node';
 * app.use('/admin/deliveries', requireLogin, ledgerPage(ledger, { authorize: (req) => req.user?.role === 'admin' }));
 * ```
 */
export function ledgerPage<Req extends LedgerPageRequest = LedgerPageRequest>(
  ledger: Ledger,
  options: NodeLedgerPageOptions<Req>,
): (req: Req, res: NodeResponse) => Promise<void> {
  const { authorize } = options ?? {};
  // The core checks the option and answers 403 or 500; the user's check gets the Node request.
  const check = typeof authorize === 'function' ? (_request: Request, req?: Req) => authorize(req as Req) : authorize;
  const page = fetchLedgerPage<Req>(ledger, { ...options, authorize: check });
  return async (req, res) => {
    try {
      const response = await page(fetchRequest(req), req);
      const body = await response.text();
      if (res.headersSent || res.writableEnded) return;
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(body);
    } catch (error) {
      // Never an unhandled rejection on node:http; the page answers its own failures itself.
      logUnexpected(error);
      if (!res.headersSent && !res.writableEnded) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('');
    }
  };
}
