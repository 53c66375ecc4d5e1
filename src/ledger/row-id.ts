/** Width of the time part: 13 digits hold every epoch ms until the year 2286. */
const TIME_DIGITS = 13;
const ROW_ID = /^r\.(\d{13})\.[0-9a-f]{12}$/;

let sequence = 0;
/**
 * Random bytes drawn for this many ids at once: a `getRandomValues` call per row cost more than
 * the rest of the row together (17,700 of the ledger's 44,000 instructions per delivery, issue 48).
 */
const POOL_IDS = 256;
// Marked pure: a module-level call would otherwise keep this module in bundles that never make a row.
const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
let pool = new Uint8Array(0);
let used = 0;

/**
 * A new row id, `r.<received at, 13 digits>.<12 hex>`: fixed width, so ids sort by arrival as
 * text in every store, and a list's cursor is just the last id seen. The hex starts with a
 * counter of this process, so rows of one millisecond keep their order here; across
 * instances the rest is random.
 */
export function rowId(receivedAt: number): string {
  sequence = (sequence + 1) % 0x10000;
  if (used + 4 > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(4 * POOL_IDS));
    used = 0;
  }
  let random = sequence.toString(16).padStart(4, '0');
  for (const end = used + 4; used < end; used++) random += HEX[pool[used]!];
  return `r.${String(Math.max(0, Math.floor(receivedAt))).padStart(TIME_DIGITS, '0')}.${random}`;
}

/** When the row of this id was received, epoch ms; undefined for an id {@link rowId} did not make. */
export function rowTime(id: string): number | undefined {
  const match = ROW_ID.exec(id);
  return match ? Number(match[1]) : undefined;
}
