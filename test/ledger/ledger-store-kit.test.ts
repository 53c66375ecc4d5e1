import { describe, expect, it } from 'vitest';
import { type LedgerStore, memoryLedgerStore } from 'webhook-cms-receiver';
import { checkLedgerStore } from 'webhook-cms-receiver/testing';

describe('checkLedgerStore', () => {
  it('passes the memory ledger store', async () => {
    const report = await checkLedgerStore(() => memoryLedgerStore(), { name: 'memory' });
    expect(report.ok).toBe(true);
    expect(report.checks.length).toBeGreaterThanOrEqual(10);
  });

  it('fails a store that numbers every copy 1, and one that lists oldest first', async () => {
    const firstCopy = (): LedgerStore => {
      const store = memoryLedgerStore();
      return {
        ...store,
        append: (entries) => {
          for (const entry of entries) store.append([{ ...entry, deliveryId: `${entry.deliveryId}-${Math.random()}` }]);
        },
      };
    };
    const copies = await checkLedgerStore(firstCopy, { throwOnFailure: false });
    expect(copies.checks.find((check) => check.name.startsWith('copy'))?.outcome).toBe('failed');
    const oldestFirst = (): LedgerStore => {
      const store = memoryLedgerStore();
      return {
        ...store,
        async list(filter) {
          const page = await store.list(filter);
          return { ...page, rows: [...page.rows].reverse() };
        },
      };
    };
    await expect(checkLedgerStore(oldestFirst)).rejects.toThrow(/newest first/);
  });
});
