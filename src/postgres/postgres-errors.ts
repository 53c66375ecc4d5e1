import { describeThrown } from '../internal/describe.js';

/**
 * The two table names an explanation quotes. Declared here, not imported from table-sql.ts, so
 * that file (which explains its own errors) imports this one and never the other way round.
 */
interface TableNames {
  deliveries: string;
  articles: string;
}

/** SQLSTATE of an error from any of the clients (they all copy the server's `code`). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether the server refused the statement (the error, or the cause an explanation wraps,
 * carries a five-character SQLSTATE): it then wrote nothing. A lost connection carries none
 * (or a client's own code, such as `ECONNRESET`): the statement may have committed.
 */
export function refusedByServer(error: unknown): boolean {
  return [error, (error as { cause?: unknown } | null | undefined)?.cause].some((e) =>
    /^[0-9A-Z]{5}$/.test(sqlState(e) ?? ''),
  );
}

/**
 * A lock wait that gave up (`lock_timeout`), or a deadlock Postgres broke by cancelling this
 * statement: either way another transaction holds the delivery or its article right now.
 */
export function isLockConflict(error: unknown): boolean {
  const code = sqlState(error);
  return code === '55P03' || code === '40P01';
}

/**
 * Wraps the database errors whose fix is on the user's side in one that names it; the
 * original stays as `cause`. Other errors (connection refused, timeouts) pass unchanged.
 */
export function explainPostgresError(error: unknown, tables: TableNames, step: string): unknown {
  const fix = fixFor(sqlState(error), tables);
  if (!fix) return error;
  return new Error(`postgresDedupStore could not ${step}: ${describeThrown(error)}. ${fix}`, { cause: error });
}

function fixFor(code: string | undefined, { deliveries, articles }: TableNames): string | undefined {
  const migration = 'postgresDedupTableSql({ table }) from webhook-cms-receiver/postgres';
  switch (code) {
    case '42P01':
      return (
        `The tables ${deliveries} and ${articles} do not exist: with createTable: false, run ${migration} in a ` +
        'migration first, or leave createTable on so the store creates them on first use.'
      );
    case '42501':
      return (
        `The database user lacks a privilege on ${deliveries} or ${articles} (or to create them): run ${migration} ` +
        'as their owner in a migration and pass createTable: false, and GRANT SELECT, INSERT, UPDATE, DELETE on both.'
      );
    case '42703':
    case '42804':
    case '42P10':
      return (
        `${deliveries} or ${articles} exists with other columns than this store's: it belongs to something else. ` +
        'Give the store another `table`, or compare it with postgresDedupTableSql().'
      );
    default:
      return undefined;
  }
}
