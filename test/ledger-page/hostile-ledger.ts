import type { Ledger, LedgerRow, ResendItem } from 'webhook-cms-receiver';

/** What refused requests wrote into every field they could: each is to appear as text, and nothing may run. */
export const VECTORS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '</style><svg onload=alert(1)>',
  '{{7*7}}',
  'line\u2028separator',
  `${'L'.repeat(299)}<script>alert(2)</script>${'x'.repeat(20_000)}`,
] as const;

const NOW = Date.now();

/** A ledger over refused rows whose every text field is one vector, newest first. */
export function hostileLedger(): Ledger {
  const rows: LedgerRow[] = VECTORS.map((vector, index) => ({
    id: vector,
    receivedAt: NOW - index * 60_000,
    durationMs: 3,
    verified: false,
    deliveryId: vector,
    event: vector,
    articleId: vector,
    slug: vector,
    articleStatus: vector,
    profileId: vector,
    tenant: vector,
    status: 401,
    code: vector,
    tokenIndex: null,
    publishedUrl: vector,
    copy: 1,
    kept: true,
    recoveredFrom: vector,
  }));
  const resend: ResendItem[] = VECTORS.map((vector) => ({
    articleId: vector,
    deliveryId: vector,
    slug: vector,
    event: vector,
    refusedAt: NOW,
    status: 401,
    code: vector,
    refusals: 1,
    kept: true,
  }));
  return {
    keepRefused: true,
    list: async () => ({ rows, next: VECTORS[1] }),
    summary: async () => [{ hour: NOW, delivered: 0, refused: rows.length, rejected: 0, failed: 0 }],
    resend: async () => resend,
    recover: async () => ({ recovered: 0, failed: 0, unverified: rows.length }),
    flush: async () => {},
  };
}
