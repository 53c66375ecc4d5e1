import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The BUILT entry (npm test builds first), run by a fresh Node whose TZ is set before anything
// reads a date: the same article must be public at the same instant on every host.
const dist = fileURLToPath(new URL('../../dist/publish.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'publish-tz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (iso: string) => Date.parse(iso);
/** [published_at, now, public?] */
const CASES: [string, number, boolean][] = [
  // Z and offsets, one millisecond either side of the instant.
  ['2026-06-01T12:00:00Z', at('2026-06-01T12:00:00Z'), true],
  ['2026-06-01T12:00:00Z', at('2026-06-01T11:59:59.999Z'), false],
  ['2026-06-01T21:00:00+09:00', at('2026-06-01T12:00:00Z'), true],
  ['2026-06-01T21:00:00+09:00', at('2026-06-01T11:59:59.999Z'), false],
  ['2026-06-01T07:00:00.000-05:00', at('2026-06-01T11:59:59.999Z'), false],
  ['2026-06-01T07:00:00.000-05:00', at('2026-06-01T12:00:00Z'), true],
  // No offset: UTC, never the host's zone (Tokyo read 12:00 as 03:00Z, public nine hours early).
  ['2026-06-01T12:00:00', at('2026-06-01T11:59:59.999Z'), false],
  ['2026-06-01T12:00:00', at('2026-06-01T12:00:00Z'), true],
  ['2026-06-01T12:00', at('2026-06-01T12:00:00Z'), true],
  // Not dates: never public, whenever.
  ['0', at('2030-01-01T00:00:00Z'), false],
  ['99', at('2030-01-01T00:00:00Z'), false],
  ['2026-02-30', at('2030-01-01T00:00:00Z'), false],
  ['2026-02-30T00:00:00Z', at('2030-01-01T00:00:00Z'), false],
  ['2026-02-29T00:00:00Z', at('2030-01-01T00:00:00Z'), false],
  ['2028-02-29T00:00:00Z', at('2030-01-01T00:00:00Z'), true],
  ['2026-06-01T24:00:00Z', at('2030-01-01T00:00:00Z'), false],
  ['2026-06-01', at('2030-01-01T00:00:00Z'), false],
  ['June 1, 2026', at('2030-01-01T00:00:00Z'), false],
  ['2026-06-01T12:00:00+25:00', at('2030-01-01T00:00:00Z'), false],
];

const script = `
  const { isPublic, invalidDates } = await import('./publish.js');
  const cases = ${JSON.stringify(CASES)};
  console.log(JSON.stringify({
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    offset: new Date('2026-06-01T00:00:00Z').getTimezoneOffset(),
    visible: cases.map(([published_at, now]) => isPublic({ status: 'published', published_at, scheduled_at: null }, { now })),
    reported: cases.map(([published_at]) => invalidDates({ published_at, scheduled_at: null }).length > 0),
  }));`;

describe.each(['Asia/Tokyo', 'UTC'])('isPublic with the host in %s', (zone) => {
  it('reads ISO 8601 with Z or an offset, a time without one as UTC, and nothing else', () => {
    copyFileSync(dist, join(dir, 'publish.js'));
    writeFileSync(join(dir, 'check.mjs'), script);
    const out = JSON.parse(
      execFileSync(process.execPath, ['check.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, TZ: zone } }),
    );
    expect(out.offset).toBe(zone === 'UTC' ? 0 : -540);
    const rows = CASES.map(([date, now], i) => [date, new Date(now).toISOString(), out.visible[i]]);
    expect(rows).toEqual(CASES.map(([date, now, visible]) => [date, new Date(now).toISOString(), visible]));
    // Every set value that is not a date is reported; dates are not.
    const notDates = ['0', '99', '2026-02-30', '2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2026-06-01T24:00:00Z'];
    const extra = ['2026-06-01', 'June 1, 2026', '2026-06-01T12:00:00+25:00'];
    expect(CASES.map(([date], i) => [date, out.reported[i]])).toEqual(
      CASES.map(([date]) => [date, [...notDates, ...extra].includes(date)]),
    );
  });
});
