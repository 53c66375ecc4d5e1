import { describe, expect, it } from 'vitest';
import { ledgerPrefix } from './ledger-store.js';

describe('ledgerPrefix', () => {
  it('adds the hash tag {ledger} to a prefix without one, so a Cluster keeps the ledger in one slot', () => {
    expect(ledgerPrefix('webhook-cms:')).toBe('webhook-cms:{ledger}:');
    expect(ledgerPrefix('')).toBe('{ledger}:');
  });

  it("keeps a prefix's own hash tag", () => {
    expect(ledgerPrefix('{site-a}:')).toBe('{site-a}:');
    expect(ledgerPrefix('blog:{b}:x')).toBe('blog:{b}:x');
  });

  it('refuses a brace that opens no tag, which would hash each key whole', () => {
    expect(() => ledgerPrefix('a{}:')).toThrow(/never fills/);
    expect(() => ledgerPrefix('a{b:')).toThrow(/never fills/);
    expect(() => ledgerPrefix(3 as unknown as string)).toThrow(/keyPrefix must be a string/);
  });
});
