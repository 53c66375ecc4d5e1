import { describe, expect, it } from 'vitest';
import { rowId, rowTime } from './row-id.js';

describe('rowId', () => {
  // The random part is drawn for 256 ids at once: ids past each refill must stay well formed and distinct.
  it('makes well-formed, distinct ids across refills of its random bytes', () => {
    const at = Date.UTC(2026, 10, 28, 12);
    const ids = Array.from({ length: 1000 }, () => rowId(at));
    for (const id of ids) {
      expect(id).toMatch(/^r\.\d{13}\.[0-9a-f]{12}$/);
      expect(rowTime(id)).toBe(at);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // The random part (after the 4-hex counter) differs too, not only the counter.
    expect(new Set(ids.map((id) => id.slice(-8))).size).toBeGreaterThan(990);
  });

  it('sorts ids of later times after earlier ones', () => {
    expect(rowId(1_000) < rowId(1_001)).toBe(true);
    expect(rowId(999_999_999_999) < rowId(1_000_000_000_000)).toBe(true);
  });
});
