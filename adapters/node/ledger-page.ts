import { type Ledger, type LedgerPageOptions, ledgerPage as fetchLedgerPage } from 'webhook-cms-receiver';
import type { NodeRequest, NodeResponse } from './node-objects.js';

/** What the Node form of the page reads of a request beyond {@link NodeRequest}: where it is. */
export interface LedgerPageRequest extends NodeRequest {
  url?: string | undefined;
  /** Express: the URL before the mount path was cut off. */
  originalUrl?: string | undefined;
  /** Express: `https` behind a proxy it trusts (`app.set('trust proxy', …)`). */
  protocol?: string | undefined;
  socket?: (NodeRequest['socket'] & { encrypted?: boolean }) | null;
}

/** Options of the Node {@link ledgerPage}: as the Fetch one's, with `authorize` given the Node request. */
export interface NodeLedgerPageOptions<Req extends LedgerPageRequest = LedgerPageRequest>
  extends Omit<LedgerPageOptions, 'authorize'> {
  /**
   * Required: whether this request may see the ledger, given the Node request itself (so
   * Express's `req.session`, `req.user`, … are there). `false` answers 403, a throw 500.
   */
  authorize: (req: Req) => boolean | Promise<boolean>;
}

// The page's own answers carry these and more; this one comes before the page can answer.
const BAD_REQUEST_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

/** The Fetch `Request` the page reads for a Node request: method, URL and headers; the page reads no body. */
function fetchRequest(req: LedgerPageRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) headers.append(name, one);
  }
  const protocol = req.protocol ?? (req.socket?.encrypted ? 'https' : 'http');
  const host = headers.get('host') ?? 'localhost';
  return new Request(new URL(req.originalUrl ?? req.url ?? '/', `${protocol}://${host}`), {
    method: req.method ?? 'GET',
    headers,
  });
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
  const nodeRequests = new WeakMap<Request, Req>();
  const authorize = options?.authorize;
  const page = fetchLedgerPage(ledger, {
    ...options,
    // The core checks the option and answers 403 or 500; the user's check sees the Node request.
    authorize:
      typeof authorize === 'function'
        ? (request: Request) => authorize(nodeRequests.get(request) as Req)
        : (authorize as never),
  });
  return async (req, res) => {
    let request: Request;
    try {
      request = fetchRequest(req);
    } catch {
      res.writeHead(400, BAD_REQUEST_HEADERS);
      res.end('<!doctype html><title>Bad request</title><p>The Host header or the URL is not valid.</p>');
      return;
    }
    nodeRequests.set(request, req);
    const response = await page(request);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = await response.text();
    if (res.headersSent || res.writableEnded) return;
    res.writeHead(response.status, headers);
    res.end(body);
  };
}
