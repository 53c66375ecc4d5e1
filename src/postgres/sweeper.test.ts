import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database } from './database.js';
import { SWEEP_EVERY, SWEEP_ROWS, sweeper } from './sweeper.js';
import { tablesFor } from './table-sql.js';

// Which claims start a sweep, and how many rows each may delete, with a database that records
// the sweeps and leaves them running until the test ends them.

function recordingDatabase() {
  const sweeps: Array<{ rows: unknown; end: () => void }> = [];
  const db = {
    kind: 'pg-pool',
    query: (_text: string, params: readonly unknown[]) =>
      new Promise((resolve) => sweeps.push({ rows: params[0], end: () => resolve([]) })),
    transaction: () => Promise.reject(new Error('not used')),
  } as unknown as Database;
  return { db, sweeps };
}

afterEach(() => vi.useRealTimers());

describe('sweeper', () => {
  it('runs one sweep at a time; the next deletes the rows of every sweep owed meanwhile', async () => {
    const { db, sweeps } = recordingDatabase();
    const due = sweeper({ db, tables: tablesFor('t'), ready: async () => {} });
    const first = due.due();
    expect(first).toBeInstanceOf(Promise);
    // Three more sweeps come due while the first runs: none starts.
    for (let claim = 2; claim <= 3 * SWEEP_EVERY + 1; claim++) expect(due.due()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sweeps.map((sweep) => sweep.rows)).toEqual([SWEEP_ROWS]);
    sweeps[0]!.end();
    await first;
    const next = due.due(); // not due itself, but three are owed
    await new Promise((resolve) => setImmediate(resolve));
    expect(sweeps.map((sweep) => sweep.rows)).toEqual([SWEEP_ROWS, 3 * SWEEP_ROWS]);
    sweeps[1]!.end();
    await next;
    expect(due.due()).toBeUndefined();
  });

  it('takes a sweep running for over a minute for lost, and starts another', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T12:00:00Z'), toFake: ['Date'] });
    const { db, sweeps } = recordingDatabase();
    const due = sweeper({ db, tables: tablesFor('t'), ready: async () => {} });
    void due.due();
    for (let claim = 2; claim <= SWEEP_EVERY + 1; claim++) expect(due.due()).toBeUndefined();
    vi.setSystemTime(Date.now() + 60_000);
    expect(due.due()).toBeInstanceOf(Promise);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sweeps).toHaveLength(2);
  });
});
