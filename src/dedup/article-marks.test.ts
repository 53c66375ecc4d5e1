import { describe, expect, it } from 'vitest';
import { ArticleMarks } from './article-marks.js';

const RETENTION = 1000;
const order = (articleId: string, timestamp: number) => ({ articleId, timestamp });
const marks = (maxEntries = 100) => new ArticleMarks({ retentionMs: RETENTION, maxEntries });

describe('ArticleMarks: one delivery per article at a time', () => {
  it('lets the next delivery in exactly when the running one’s hold ends, not a moment before', () => {
    const m = marks();
    m.enter(order('a', 1), { lease: 1, until: 100, at: 0 });
    m.applied(order('a', 1), 1, 10); // the mark now lives until 1010
    expect(m.enter(order('a', 2), { lease: 2, until: 120, at: 20 })).toEqual({ state: 'enter' });
    expect(m.enter(order('a', 3), { lease: 3, until: 200, at: 119 })).toEqual({ state: 'busy' });
    expect(m.enter(order('a', 3), { lease: 3, until: 220, at: 120 })).toEqual({ state: 'enter' });
  });

  it('lets a delivery in when nobody holds the article, whatever the last hold’s end was', () => {
    const m = marks();
    m.enter(order('a', 1), { lease: 1, until: 500, at: 0 });
    m.applied(order('a', 1), 1, 10);
    expect(m.enter(order('a', 2), { lease: 2, until: 100, at: 20 })).toEqual({ state: 'enter' });
  });

  it('keeps the article’s newest mark for its retention even when a short hold enters after it', () => {
    const m = marks();
    m.enter(order('a', 200), { lease: 1, until: 50, at: 0 });
    m.applied(order('a', 200), 1, 10); // remembered until 1010
    m.enter(order('a', 300), { lease: 2, until: 120, at: 20 });
    m.leave(order('a', 300), 2);
    expect(m.enter(order('a', 100), { lease: 3, until: 600, at: 500 })).toEqual({
      state: 'stale',
      newerTimestamp: 200,
    });
  });

  it('forgets the mark exactly at the end of its retention', () => {
    const m = marks();
    m.applied(order('a', 200), 1, 10);
    expect(m.enter(order('a', 100), { lease: 2, until: 1100, at: 1009 })).toMatchObject({ state: 'stale' });
    expect(m.enter(order('a', 100), { lease: 3, until: 1110, at: 1010 })).toEqual({ state: 'enter' });
  });

  it('does not free an article for a late success or failure of a delivery that lost its hold', () => {
    const late = marks();
    late.enter(order('a', 1), { lease: 1, until: 100, at: 0 });
    late.applied(order('a', 0), 9, 5); // mark lives to 1005; holder still lease 1
    expect(late.enter(order('a', 2), { lease: 2, until: 300, at: 150 })).toEqual({ state: 'enter' });
    late.applied(order('a', 1), 1, 160); // lease 1 finished after lease 2 took over
    expect(late.enter(order('a', 3), { lease: 3, until: 400, at: 170 })).toEqual({ state: 'busy' });

    const failed = marks();
    failed.enter(order('a', 1), { lease: 1, until: 100, at: 0 });
    failed.applied(order('a', 0), 9, 5);
    failed.enter(order('a', 2), { lease: 2, until: 300, at: 150 });
    failed.leave(order('a', 1), 1);
    expect(failed.enter(order('a', 3), { lease: 3, until: 400, at: 170 })).toEqual({ state: 'busy' });
    failed.leave(order('a', 2), 2);
    expect(failed.enter(order('a', 3), { lease: 3, until: 400, at: 171 })).toEqual({ state: 'enter' });
  });

  it('ignores leaving an article it never saw', () => {
    expect(() => marks().leave(order('never', 1), 1)).not.toThrow();
  });
});

describe('ArticleMarks.renew', () => {
  it('extends the holder’s own hold, and refuses another lease while that hold runs', () => {
    const m = marks();
    m.applied(order('a', 1), 7, 0); // remembered until 1000, nobody holds it
    m.enter(order('a', 2), { lease: 2, until: 120, at: 20 });
    expect(m.renew(order('a', 2), { lease: 2, until: 150, at: 50 })).toBe(true);
    expect(m.renew(order('a', 2), { lease: 3, until: 200, at: 149 })).toBe(false);
    expect(m.renew(order('a', 2), { lease: 3, until: 200, at: 150 })).toBe(true);
  });

  it('takes a free article even when the last hold’s end is still ahead', () => {
    const m = marks();
    m.enter(order('a', 1), { lease: 1, until: 500, at: 0 });
    m.applied(order('a', 1), 1, 10);
    expect(m.renew(order('a', 2), { lease: 2, until: 600, at: 20 })).toBe(true);
    expect(m.enter(order('a', 3), { lease: 3, until: 700, at: 30 })).toEqual({ state: 'busy' });
  });
});

describe('ArticleMarks at its bound', () => {
  /** Each article entered with a hold far ahead, then applied: free, but with a future hold end. */
  function applyAll(m: ArticleMarks, ids: string[], at: number) {
    for (const [i, id] of ids.entries()) {
      m.enter(order(id, 5), { lease: 100 + i, until: at + 10_000, at });
      m.applied(order(id, 5), 100 + i, at);
    }
  }

  it('holds at most maxEntries free articles and forgets the oldest first', () => {
    const m = marks(2);
    applyAll(m, ['a', 'b'], 0);
    expect(m.size).toBe(2);
    applyAll(m, ['c'], 1);
    expect(m.size).toBe(2);
    expect(m.enter(order('a', 1), { lease: 9, until: 50, at: 2 })).toEqual({ state: 'enter' });
    expect(m.enter(order('c', 1), { lease: 10, until: 50, at: 2 })).toMatchObject({ state: 'stale' });
  });

  it('never drops the mark of a delivery still running, and stops looking after a few', () => {
    const m = marks(1);
    for (let i = 0; i < 12; i++) m.enter(order(`held-${i}`, 1), { lease: i + 1, until: 5000, at: 0 });
    expect(m.size).toBe(12);
    for (let i = 0; i < 12; i++) {
      expect(m.enter(order(`held-${i}`, 2), { lease: 50 + i, until: 6000, at: 1 })).toEqual({ state: 'busy' });
    }
  });

  it('steps over eight running holds per add at most, so a free mark right behind them stays until the next add', () => {
    const m = marks(8);
    for (let i = 0; i < 8; i++) m.enter(order(`held-${i}`, 1), { lease: i + 1, until: 5000, at: 0 });
    // Over the bound by one: the eight holds move to the young end and the search stops there.
    m.applied(order('free', 5), 99, 1);
    expect(m.size).toBe(9);
    expect(m.enter(order('free', 4), { lease: 100, until: 6000, at: 2 })).toEqual({
      state: 'stale',
      newerTimestamp: 5,
    });
    // The next add finds the free mark first and drops it.
    m.applied(order('next', 5), 101, 3);
    expect(m.size).toBe(9);
    expect(m.enter(order('free', 4), { lease: 102, until: 6000, at: 4 })).toEqual({ state: 'enter' });
  });

  it('drops a mark whose holder’s hold ended exactly now', () => {
    const m = marks(1);
    m.enter(order('a', 1), { lease: 1, until: 100, at: 0 });
    m.enter(order('b', 1), { lease: 2, until: 5000, at: 100 });
    expect(m.size).toBe(1);
  });

  it('drops expired marks from the front even under the bound', () => {
    const m = marks(10);
    m.applied(order('a', 1), 1, 0);
    m.applied(order('b', 1), 2, 0);
    m.applied(order('c', 1), 3, RETENTION);
    expect(m.size).toBe(1);
  });
});
