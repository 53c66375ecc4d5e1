import {
  DEFAULT_LEDGER_RETENTION_MS,
  type LedgerEntry,
  type LedgerFilter,
  type LedgerHour,
  type LedgerOutcome,
  type LedgerRow,
  type LedgerStore,
  ledgerOutcome,
  matchesLedgerFilter,
} from 'webhook-cms-receiver';
import { ledgerRetention } from '../internal/ledger-retention.js';
import { redisKeptRequests } from './kept-store.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';
import { APPEND_FIELDS, APPEND_SCRIPT, HOURS_SCRIPT, LIST_SCRIPT, PRUNE_SCRIPT } from './ledger-scripts.js';
import { type RedisClientLike, type RunScript, scriptRunner } from './script-runner.js';

/**
 * Options of {@link redisLedgerStore}.
 *
 * @example
 * ```ts
 * const store = redisLedgerStore(redis, { keyPrefix: '{site-a}:', retentionMs: 7 * 86_400_000 });
 * ```
 */
export interface RedisLedgerStoreOptions {
  /**
   * Prepended to every key (default `webhook-cms:`), followed by the hash tag `{ledger}:`
   * unless the prefix holds a tag of its own (`{site-a}:`). Give ledgers that must not share
   * rows different prefixes.
   */
  keyPrefix?: string;
  /** The ledger's retention, in ms: each key's TTL, so a ledger nobody prunes still empties. Default 30 days. */
  retentionMs?: number;
  /** The clock for kept refusals' expiry, epoch ms (default `Date.now`). */
  now?: () => number;
}

const HOUR_MS = 3_600_000;
const hourOf = (time: number) => Math.floor(time / HOUR_MS) * HOUR_MS;
const emptyHour = (hour: number): LedgerHour => ({ hour, delivered: 0, refused: 0, rejected: 0, failed: 0 });
/** Most rows one prune call drops before handing back, so one script never blocks Redis long. */
const PRUNE_BUDGET = 2000;
/** Most ids one list call reads. */
const MAX_CHUNK = 1000;

/**
 * The {@link LedgerStore} of `redisLedger`: rows in one Redis (or one Redis Cluster slot),
 * shared by every instance. Each batch is one Lua script (one round trip), which assigns
 * `copy` atomically, indexes the row by article, delivery id, tenant, status class and
 * verification, and counts it in its hour, so `summary` reads counters instead of rows.
 *
 * @example
 * ```ts
 * import { createLedger } from 'webhook-cms-receiver';
 * import { redisLedgerStore } from 'webhook-cms-receiver/redis';
 * const ledger = createLedger(redisLedgerStore(redis, { keyPrefix: 'blog:' }), { retentionMs: 7 * 86_400_000 });
 * ```
 */
export function redisLedgerStore(client: RedisClientLike, options: RedisLedgerStoreOptions = {}): LedgerStore {
  const run = ledgerRunner(client);
  const prefix = ledgerPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const retentionMs = ledgerRetention(options.retentionMs, DEFAULT_LEDGER_RETENTION_MS, 'redisLedger: retentionMs');
  const ttl = String(Math.max(1, Math.ceil(retentionMs)));
  const rowsKey = `${prefix}rows`;
  const scan = (filter: LedgerFilter) => scanRows(run, prefix, filter);

  return {
    async append(entries) {
      if (entries.length === 0) return;
      const args = [prefix, ttl];
      for (const entry of entries) args.push(...appendFields(entry));
      await run(APPEND_SCRIPT, [rowsKey], args);
    },
    async list(filter) {
      const rows: LedgerRow[] = [];
      for await (const row of scan(filter)) {
        if (rows.length === filter.limit) return { rows, next: rows[rows.length - 1]!.id };
        rows.push(row);
      }
      return { rows };
    },
    async summary({ since, until, tenant }) {
      const hours = new Map<number, LedgerHour>();
      const add = (hour: number, outcome: LedgerOutcome, count: number) => {
        let counts = hours.get(hour);
        if (!counts) hours.set(hour, (counts = emptyHour(hour)));
        counts[outcome] += count;
      };
      // Whole hours from the counters append keeps; the partial hours at either end from the rows.
      const firstWhole = Math.ceil(since / HOUR_MS) * HOUR_MS;
      const endWhole = hourOf(until);
      const tenantPart = tenant === undefined ? '' : `=${tenant}`;
      if (firstWhole < endWhole) {
        const flat = await run(HOURS_SCRIPT, [`${prefix}hours${tenantPart}`], []);
        const pairs = Array.isArray(flat) ? flat.map(String) : [];
        for (let i = 0; i + 1 < pairs.length; i += 2) {
          const [hour, outcome] = pairs[i]!.split(':') as [string, LedgerOutcome];
          const start = Number(hour);
          if (start >= firstWhole && start < endWhole && Number(pairs[i + 1]) > 0)
            add(start, outcome, Number(pairs[i + 1]));
        }
      }
      const edges =
        firstWhole < endWhole
          ? [
              [since, firstWhole],
              [endWhole, until],
            ]
          : [[since, until]];
      for (const [from, to] of edges) {
        if (from! >= to!) continue;
        const range: LedgerFilter = { since: from!, until: to!, limit: MAX_CHUNK };
        if (tenant !== undefined) range.tenant = tenant;
        for await (const row of scan(range)) add(hourOf(row.receivedAt), ledgerOutcome(row.status), 1);
      }
      return [...hours.values()].sort((a, b) => a.hour - b.hour);
    },
    async prune({ before, maxRowsPerTenant, maxRefusedRows }) {
      let dropped = 0;
      for (;;) {
        const args = [prefix, idAt(Math.ceil(before)), String(maxRowsPerTenant), String(maxRefusedRows)];
        const reply = await run(PRUNE_SCRIPT, [rowsKey], [...args, String(PRUNE_BUDGET)]);
        const [count, more] = Array.isArray(reply) ? reply.map(Number) : [0, 0];
        dropped += count ?? 0;
        if (more !== 1) return dropped;
      }
    },
    refusals: redisKeptRequests(run, `${prefix}refused:`, options.now),
  };
}

/** The script arguments of one row (see APPEND_SCRIPT). */
function appendFields(entry: LedgerEntry): string[] {
  const json = JSON.stringify(entry);
  const fields = [entry.id, json, part(entry.tenant), part(entry.deliveryId), part(entry.articleId)];
  fields.push(part(entry.recoveredFrom ?? null), entry.verified ? '1' : '0', String(Math.floor(entry.status / 100)));
  fields.push(`${hourOf(entry.receivedAt)}:${ledgerOutcome(entry.status)}`);
  if (fields.length !== APPEND_FIELDS) throw new Error('redisLedger: append fields out of step with the script');
  return fields;
}

/** `''` for null, else `=` and the value: the suffix of an index key, distinct from every other. */
function part(value: string | null): string {
  return value === null ? '' : `=${value}`;
}

/** The lowest id of a row received at `time`: `r.` and 13 digits. */
function idAt(time: number): string {
  return `r.${String(Math.max(0, time)).padStart(13, '0')}`;
}

/**
 * The matching rows, newest first, read from the narrowest index the filter allows in chunks
 * (one script call each), each row checked against the whole filter.
 */
async function* scanRows(run: RunScript, prefix: string, filter: LedgerFilter): AsyncGenerator<LedgerRow> {
  const index = `${prefix}${indexOf(filter)}`;
  let upper = '+';
  if (filter.until !== undefined) upper = `(${idAt(Math.ceil(filter.until))}`;
  if (filter.cursor !== undefined && (upper === '+' || `(${filter.cursor}` < upper)) upper = `(${filter.cursor}`;
  const lower = filter.since === undefined ? '-' : `[${idAt(Math.floor(filter.since))}`;
  // The first chunk fits a page that every row matches; later ones are larger.
  let chunk = Math.min(MAX_CHUNK, filter.limit + 1);
  for (;;) {
    const reply = await run(LIST_SCRIPT, [index, `${prefix}rows`], [upper, lower, String(chunk)]);
    const flat = Array.isArray(reply) ? reply.map(String) : [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (flat[i + 1] === '') continue;
      const row = JSON.parse(flat[i + 1]!) as LedgerRow;
      if (matchesLedgerFilter(row, filter)) yield row;
    }
    if (flat.length < chunk * 2) return;
    upper = `(${flat[flat.length - 2]!}`;
    chunk = MAX_CHUNK;
  }
}

/** The narrowest index a filter names (the rest is checked row by row). */
function indexOf(filter: LedgerFilter): string {
  if (filter.recoveredFrom !== undefined) return `r=${filter.recoveredFrom}`;
  if (filter.deliveryId !== undefined) return `d=${filter.deliveryId}`;
  if (filter.article !== undefined) return `a=${filter.article}`;
  if (filter.tenant !== undefined) return `t=${filter.tenant}`;
  if (filter.verified === false) return 'u';
  const { statusFrom: from, statusTo: to } = filter;
  if (from !== undefined && to !== undefined && Math.floor(from / 100) === Math.floor(to / 100)) {
    return `c=${Math.floor(from / 100)}`;
  }
  return 'ids';
}

/**
 * The prefix every key of one ledger starts with, ending in a hash tag: the prefix as given
 * when it holds a tag, else with `{ledger}:` after it. A `{` without a non-empty tag would
 * let Redis hash each key whole and split the ledger across Cluster slots: refused.
 */
export function ledgerPrefix(prefix: string): string {
  if (typeof prefix !== 'string') throw new TypeError(`redisLedger: keyPrefix must be a string, got ${typeof prefix}.`);
  const open = prefix.indexOf('{');
  if (open === -1) return `${prefix}{ledger}:`;
  const close = prefix.indexOf('}', open + 1);
  if (close > open + 1) return prefix;
  throw new TypeError(
    `redisLedger: keyPrefix ${JSON.stringify(prefix)} opens a hash tag it never fills ("{}" or no "}"), which ` +
      'would split the ledger across Redis Cluster slots. Remove the brace, or put a name inside ("{ledger-a}:").',
  );
}

/** The script runner, its error naming this ledger rather than the dedup store. */
function ledgerRunner(client: RedisClientLike): RunScript {
  try {
    return scriptRunner(client);
  } catch (error) {
    throw new TypeError(String((error as Error).message).replace('redisDedupStore', 'redisLedger'));
  }
}
