import { createLedger } from '../ledger/create-ledger.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerStore } from '../ledger/ledger-store.js';
import type { PgPoolLike } from '../postgres/database.js';
import { postgresLedgerStore } from '../postgres/ledger-store.js';
import { redisLedgerStore } from '../redis/ledger-store.js';
import type { RedisClientLike } from '../redis/script-runner.js';
import { UsageError } from './usage-error.js';

/** A ledger the CLI opened from a URL: the ledger, its store (for recovery), and how to let go. */
export interface LedgerSource {
  ledger: Ledger;
  store: LedgerStore;
  close(): Promise<void>;
}

/** Where the ledger is, from the flags and the environment. */
export interface LedgerLocation {
  url: string;
  table?: string | undefined;
  prefix?: string | undefined;
}

/**
 * Opens the ledger at `url` with the store its scheme names: `postgres://` with `pg`,
 * `redis://` with `redis`, each an optional peer loaded only here. Tables are never created:
 * a CLI that reads should not write DDL into whatever database it was pointed at.
 */
export async function openLedger({ url, table, prefix }: LedgerLocation): Promise<LedgerSource> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const { default: pg } = await load<{ default: { Pool: new (options: object) => PgPoolLike & PoolExtras } }>('pg');
    const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => {});
    const store = withoutMissingKeptTable(
      postgresLedgerStore(pool, { ...(table ? { table } : {}), createTable: false }),
    );
    return { ledger: createLedger(store), store, close: () => pool.end() };
  }
  if (scheme === 'redis' || scheme === 'rediss') {
    const { createClient } = await load<{ createClient(options: object): RedisClientLike & RedisExtras }>('redis');
    // No reconnect loop: a Redis that is not there fails the command instead of hanging it.
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 10_000 } });
    client.on('error', () => {});
    await client.connect();
    const store = redisLedgerStore(client, prefix ? { keyPrefix: prefix } : {});
    return { ledger: createLedger(store), store, close: async () => void (await client.quit()) };
  }
  throw new UsageError(
    `--database-url must be a postgres://… (postgresLedger) or redis://… (redisLedger) URL, got a ${
      scheme ? `${scheme}: URL` : 'value without a scheme'
    }. DynamoDB and memory ledgers are read from your own code (ledger.list()).`,
  );
}

interface PoolExtras {
  on(event: 'error', listener: () => void): void;
  end(): Promise<void>;
}

interface RedisExtras {
  on(event: 'error', listener: () => void): void;
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
}

/** Loads an optional peer by a name the bundler leaves alone, with the fix when it is missing. */
async function load<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch {
    throw new UsageError(`ledger needs the "${name}" package for this --database-url: npm install ${name}`);
  }
}

/**
 * The kept refusals' table is created on the first refusal kept: before that, a ledger simply
 * has none, which is not an error to report.
 */
function withoutMissingKeptTable(store: LedgerStore): LedgerStore {
  const refusals = store.refusals;
  const missing = (error: unknown) => (error as { code?: unknown } | null)?.code === '42P01';
  return {
    append: (entries) => store.append(entries),
    list: (filter) => store.list(filter),
    summary: (range) => store.summary(range),
    prune: (limits) => store.prune(limits),
    refusals: {
      keep: (request, limits) => refusals.keep(request, limits),
      take: async (id) => {
        try {
          return await refusals.take(id);
        } catch (error) {
          if (missing(error)) return undefined;
          throw error;
        }
      },
      list: async () => {
        try {
          return await refusals.list();
        } catch (error) {
          if (missing(error)) return [];
          throw error;
        }
      },
      clear: () => refusals.clear(),
    },
  };
}
