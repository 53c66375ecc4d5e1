import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../events/types.js';
import type { LogFields } from './logger.js';
import { TokenUsage } from './token-usage.js';

/** A structured logger (it has `child`), so each line comes with its fields. */
function structured() {
  const lines: { message: string; fields: LogFields }[] = [];
  const logger = {
    child: () => logger,
    warn: (fields: LogFields, message: string) => void lines.push({ message, fields }),
    error: () => {},
  };
  return { lines, logger };
}

const signed = (tokenIndex: number, tenant?: string) =>
  ({ tokenIndex, ...(tenant === undefined ? {} : { tenant: { id: tenant } }) }) as unknown as WebhookEvent;

function usage() {
  const time = { now: 1_000_000 };
  const { lines, logger } = structured();
  return { time, lines, usage: new TokenUsage({ token: 'unused', logger }, () => time.now) };
}

describe('TokenUsage: the line that says an older token still signs', () => {
  it('says nothing while the first token signs', () => {
    const { lines, usage: tracker } = usage();
    for (let i = 0; i < 3; i++) tracker.note(signed(0));
    expect(lines).toEqual([]);
  });

  it('warns at once, then once per full minute with the count since, and names no token', () => {
    const { time, lines, usage: tracker } = usage();
    tracker.note(signed(1));
    expect(lines).toEqual([
      {
        message:
          '1 delivery(ies) in the last minute were signed with token #1 (not the first): the service still uses an ' +
          'older token; keep it configured until this line stops',
        fields: { tokenIndex: 1, deliveries: 1 },
      },
    ]);
    time.now += 59_999;
    tracker.note(signed(2));
    expect(lines).toHaveLength(1);
    time.now += 1;
    tracker.note(signed(2));
    expect(lines).toHaveLength(2);
    expect(lines[1]!.message).toMatch(/^2 delivery\(ies\) in the last minute were signed with token #2 /);
    expect(lines[1]!.fields).toEqual({ tokenIndex: 2, deliveries: 2 });
    // The count starts again after each line.
    time.now += 60_000;
    tracker.note(signed(1));
    expect(lines[2]!.fields).toEqual({ tokenIndex: 1, deliveries: 1 });
  });

  it('keeps a minute per tenant in tenant mode, and names the tenant', () => {
    const { lines, usage: tracker } = usage();
    tracker.note(signed(1, 'site-a'));
    tracker.note(signed(1, 'site-b'));
    tracker.note(signed(1, 'site-a'));
    tracker.note(signed(1));
    expect(lines.map((line) => line.fields)).toEqual([
      { tokenIndex: 1, deliveries: 1, tenant: 'site-a' },
      { tokenIndex: 1, deliveries: 1, tenant: 'site-b' },
      { tokenIndex: 1, deliveries: 1 },
    ]);
    expect(lines[0]!.message).toMatch(/^1 delivery\(ies\) for tenant site-a in the last minute were signed/);
    expect(lines[2]!.message).toMatch(/^1 delivery\(ies\) in the last minute/);
    // Outside tenant mode the fields carry no tenant at all, not an undefined one.
    expect(lines[2]!.fields).not.toHaveProperty('tenant');
  });

  it('tracks 1000 tenants at most: the one tracked longest is dropped first, and warns again at once', () => {
    const { lines, usage: tracker } = usage();
    for (let i = 0; i < 1000; i++) tracker.note(signed(1, `site-${i}`));
    expect(lines).toHaveLength(1000);
    // All 1000 still tracked: none warns again inside its minute.
    tracker.note(signed(1, 'site-0'));
    expect(lines).toHaveLength(1000);
    tracker.note(signed(1, 'site-1000'));
    expect(lines).toHaveLength(1001);
    // site-0 was dropped for site-1000, so it warns again; coming back, it drops site-1.
    tracker.note(signed(1, 'site-0'));
    expect(lines).toHaveLength(1002);
    expect(lines[1001]!.fields).toEqual({ tokenIndex: 1, deliveries: 1, tenant: 'site-0' });
    tracker.note(signed(1, 'site-2'));
    expect(lines).toHaveLength(1002);
    tracker.note(signed(1, 'site-1'));
    expect(lines).toHaveLength(1003);
  });
});
