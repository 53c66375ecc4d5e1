import type { Exchange } from './exchange.js';
import { errorOf } from './exchange.js';

/** Below this, a difference between the clocks is latency and the Date header's 1 s resolution, not a wrong clock. */
const NOTICEABLE_SECONDS = 60;

/**
 * What the probe can tell about the endpoint's clock: its offset from this machine's, from
 * the `Date` header of an answer (rounded to 10 s), and whether it refused a current
 * timestamp as expired.
 */
export interface ClockReading {
  /** The endpoint's clock minus this machine's, in seconds; null when it sent no usable Date header. */
  offsetSeconds: number | null;
  /** The endpoint answered `Request expired` to a timestamp made just now. */
  refusedNow: boolean;
}

/** Reads the clock from the answer to a delivery timestamped now (the test event). */
export function readClock(answer: Exchange): ClockReading {
  const date = answer.date === null ? Number.NaN : Date.parse(answer.date);
  const raw = (date - answer.sentAt) / 1000;
  const offsetSeconds = Number.isFinite(raw) && Math.abs(raw) >= NOTICEABLE_SECONDS ? Math.round(raw / 10) * 10 : null;
  return { offsetSeconds, refusedNow: errorOf(answer) === 'Request expired' };
}

/** The endpoint's offset in words, e.g. "about 400 s ahead of this machine's". */
export function offsetText(offsetSeconds: number): string {
  const side = offsetSeconds > 0 ? 'ahead of' : 'behind';
  return `about ${Math.abs(offsetSeconds)} s ${side} this machine's`;
}

/**
 * Why an endpoint accepted a timestamp `side` (`old` or `future`) when its clock, not its
 * window check, explains it; undefined when nothing points at the clock.
 */
export function clockExplains(clock: ClockReading, side: 'old' | 'future'): string | undefined {
  const { offsetSeconds } = clock;
  if (offsetSeconds !== null && (side === 'future' ? offsetSeconds > 0 : offsetSeconds < 0))
    return `the endpoint's clock is ${offsetText(offsetSeconds)} (its Date header), so to it this timestamp is inside the 300 s window: the clock is off, not the window check; sync it with NTP`;
  if (offsetSeconds === null && clock.refusedNow)
    return 'it also refused a timestamp made just now as expired, so its clock is likely off by more than 300 s rather than its window check missing: sync it with NTP';
  return undefined;
}
