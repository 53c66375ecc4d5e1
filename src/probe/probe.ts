import { httpUrl } from '../sender/http-url.js';
import { ATTEMPT_TIMEOUT_MS } from '../sender/deliver.js';
import { readOnlyRows } from './checks.js';
import type { ProbeContext, ProbeRow } from './context.js';
import { type Exchange, exchange, type ProbeFetch } from './exchange.js';
import { writeRows } from './writes.js';

/** Options of {@link probeEndpoint}. */
export interface ProbeOptions {
  /** The endpoint's token: the probe signs with it and never prints it. */
  token: string;
  /**
   * Also send deliveries that change data: a sync of a draft article whose slug starts
   * `webhook-cms-probe-`, its redelivery, 5 concurrent copies of one delivery id, and a trash
   * of the article. Default false: only `test` events and refusals.
   */
  writes?: boolean;
  /**
   * The profile the written articles name. Default: the factories' example profile. A
   * tenant-mode endpoint (`createReceiver({ tenants })`) answers 403 `Profile mismatch` to
   * articles naming another profile than the token's site, so give that site's here.
   */
  profile?: { id: string; domain: string };
  /** How long to wait for each answer. Default 10 000 ms, the service's limit. */
  timeoutMs?: number;
  /** The fetch to send with. Default `globalThis.fetch`. */
  fetch?: ProbeFetch;
  /** Called with each row as it is decided. */
  onRow?: (row: ProbeRow) => void;
}

/** What {@link probeEndpoint} found. */
export interface ProbeResult {
  /** False when any row failed. */
  ok: boolean;
  url: string;
  rows: ProbeRow[];
}

/**
 * Checks a running endpoint against the contract's delivery rules: a test event is accepted, a
 * redelivery is still acknowledged, a wrong token gets 401, a bad signature and stale, future or
 * malformed timestamps get 403, GET gets 405 with `Allow: POST` (a framework's own empty 405, or
 * the 404 of a POST-only route, passes too), and every answer comes within 10 s.
 * By default it sends only `test` events; `writes: true` adds a sync and a trash of a probe
 * article, a redelivery that must be answered as a duplicate, and concurrent copies of one
 * delivery id of which exactly one may run.
 *
 * @example
 * ```ts
 * const { ok, rows } = await probeEndpoint('http://127.0.0.1:3000/webhook', { token: process.env.WEBHOOK_TOKEN! });
 * for (const row of rows) console.log(row.result, row.name, row.reason);
 * ```
 */
export async function probeEndpoint(url: string, options: ProbeOptions): Promise<ProbeResult> {
  const target = checkedUrl(url);
  const { token } = options;
  if (typeof token !== 'string' || token === '')
    throw new TypeError("probeEndpoint: token must be the endpoint's token, a non-empty string.");
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new RangeError(`probeEndpoint: timeoutMs must be a positive number, got ${timeoutMs}.`);
  const send = options.fetch ?? globalThis.fetch;
  const exchanges: Exchange[] = [];
  const record = async (answer: Promise<Exchange>) => {
    const done = await answer;
    exchanges.push(done);
    return done;
  };
  const { profile } = options;
  if (profile !== undefined && (typeof profile?.id !== 'string' || typeof profile.domain !== 'string'))
    throw new TypeError('probeEndpoint: profile must be { id: string, domain: string }, the profile of the token.');
  const ctx: ProbeContext = {
    url: target,
    token,
    timeoutMs,
    profile,
    post: (row, delivery) => record(exchange(send, target, row, delivery, timeoutMs)),
    get: (row) => record(exchange(send, target, row, { method: 'GET' }, timeoutMs)),
  };
  const rows: ProbeRow[] = [];
  const add = (row: ProbeRow) => {
    // An endpoint may echo what it was sent; the token never reaches a row.
    const safe = { ...row, reason: row.reason.split(token).join('***') };
    rows.push(safe);
    options.onRow?.(safe);
  };
  for (const row of await readOnlyRows(ctx)) add(row);
  add(schemeRow(target));
  if (options.writes) for (const row of await writeRows(ctx, rows[0]?.result !== 'fail')) add(row);
  add(answerTimeRow(exchanges, timeoutMs));
  return { ok: rows.every((row) => row.result !== 'fail'), url: target, rows };
}

function checkedUrl(url: string): string {
  const parsed = httpUrl(url);
  if (!parsed) {
    throw new TypeError(
      `probeEndpoint: "${url}" is not an http(s) URL; pass the endpoint's full address, e.g. https://example.com/webhook`,
    );
  }
  return parsed.href;
}

function schemeRow(url: string): ProbeRow {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'https:') return { name: 'https', result: 'pass', reason: 'served over HTTPS' };
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(hostname);
  if (local) return { name: 'https', result: 'pass', reason: 'plain HTTP on this machine: fine for local testing' };
  return { name: 'https', result: 'warn', reason: 'plain HTTP: the service only delivers to https:// URLs' };
}

function answerTimeRow(exchanges: Exchange[], timeoutMs: number): ProbeRow {
  const name = 'answer time';
  const late = exchanges.filter((e) => e.timedOut);
  if (late.length > 0) {
    const rowNames = [...new Set(late.map((e) => e.row))].join(', ');
    return {
      name,
      result: 'fail',
      reason: `no answer within ${timeoutMs} ms to: ${rowNames}; the service counts that as a failure and retries. Answer first, then do slow work (or queue it)`,
    };
  }
  const answered = exchanges.filter((e) => e.status !== null);
  if (answered.length === 0) return { name, result: 'fail', reason: 'no request got an answer' };
  const slowest = answered.reduce((a, b) => (b.elapsedMs > a.elapsedMs ? b : a));
  const reason = `slowest answer ${slowest.elapsedMs} ms (${slowest.row}) of ${exchanges.length} requests; the limit is ${timeoutMs} ms`;
  if (slowest.elapsedMs > timeoutMs / 2) return { name, result: 'warn', reason: `${reason}: close to it` };
  return { name, result: 'pass', reason };
}
