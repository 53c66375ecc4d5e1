import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../ledger/ledger-row.js';
import { printable, rowsText } from './ledger-text.js';

const refused: LedgerRow = {
  id: 'r.1764324000000.000000000001',
  receivedAt: Date.UTC(2026, 10, 28, 10),
  durationMs: 1,
  verified: false,
  deliveryId: 'd\u001b[2J',
  event: 'article.sync\u0007',
  articleId: 'a\u009b31m',
  slug: '\u001b]0;pwned\u0007\u001b[31mred\u202eevil\\x1b',
  articleStatus: null,
  profileId: null,
  tenant: null,
  status: 401,
  code: 'invalid_token',
  tokenIndex: null,
  publishedUrl: null,
  copy: 1,
};

describe('the ledger CLI text', () => {
  it('never lets a control or bidi character through, and keeps an escape unambiguous', () => {
    const text = rowsText([refused], undefined);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is printed.
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(printable(refused.slug, 200)).toBe('\\x1b]0;pwned\\x07\\x1b[31mred\\u202eevil\\\\x1b');
    expect(text).toContain('unverified claim');
  });

  it('cuts a long field and shows an absent one as a dash', () => {
    expect(printable('x'.repeat(100))).toHaveLength(40);
    expect(printable(null)).toBe('-');
  });
});
