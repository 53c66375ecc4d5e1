import type { HeaderValues } from './headers.js';
import { type DiagnosisCause, fail, type Finding, pass, skip } from './result.js';

const REPLAY =
  'If you are replaying an earlier request, sign it again with a fresh timestamp (webhook-cms-receiver send, or sign --file) rather than resending its old headers.';

/** Checks 3 and 4: the header's format, then its distance from `nowSeconds`. */
export function analyzeTimestamp(
  headers: HeaderValues,
  nowSeconds: number,
  toleranceSeconds: number,
): { format: Finding; window: Finding } {
  const values = headers.get('x-service-timestamp') ?? [];
  const notChecked = skip('timestamp window', 'not checked: the timestamp is not Unix seconds');
  if (values.length === 0) {
    return {
      format: {
        check: fail('timestamp format', 'no X-Service-Timestamp header'),
        cause: {
          kind: 'timestamp-missing',
          message: 'No X-Service-Timestamp header reached the receiver.',
          fix: 'The service always sends it: check that no proxy drops X-Service-* headers. A hand-made request needs it, in Unix seconds, signed with the body (signDelivery does both).',
        },
      },
      window: { check: notChecked },
    };
  }
  const text = values.join(', ');
  if (values.length > 1 || !/^[0-9]+$/.test(text)) {
    const what = values.length > 1 ? 'arrives more than once' : describeFormat(text);
    return {
      format: {
        check: fail('timestamp format', `X-Service-Timestamp ${what}`),
        cause: {
          kind: 'timestamp-format',
          message: `X-Service-Timestamp ${what}; the service sends Unix seconds as ASCII digits.`,
          fix: 'Send Math.floor(Date.now() / 1000) as the header, and sign exactly that text with the body.',
        },
      },
      window: { check: notChecked },
    };
  }
  const format = { check: pass('timestamp format', 'Unix seconds in ASCII digits') };
  return { format, window: windowFinding(Number(text), nowSeconds, toleranceSeconds) };
}

function describeFormat(text: string): string {
  if (/^\s|\s$/.test(text)) return 'has spaces around the digits';
  if (/^\d+\.\d+$/.test(text)) return 'has a fractional part (seconds with decimals)';
  if (/^\d{4}-\d\d-\d\d/.test(text) || !Number.isNaN(Date.parse(text))) return 'is a date, not Unix seconds';
  if (/^-\d+$/.test(text)) return 'is negative';
  return 'is not ASCII digits';
}

function windowFinding(timestamp: number, nowSeconds: number, tolerance: number): Finding {
  const offset = nowSeconds - timestamp;
  const distance = `${Math.abs(offset)} s ${offset >= 0 ? 'behind' : 'ahead of'} now`;
  if (Math.abs(offset) < tolerance)
    return { check: pass('timestamp window', `${distance} (accepted under ${tolerance} s)`) };
  const check = fail('timestamp window', `${distance}; accepted under ${tolerance} s`);
  if (Math.abs(nowSeconds - Math.floor(timestamp / 1000)) < tolerance) {
    return {
      check,
      cause: {
        kind: 'timestamp-milliseconds',
        message: 'X-Service-Timestamp is in milliseconds (Date.now()); the service sends seconds.',
        fix: 'Send and sign Math.floor(Date.now() / 1000).',
      },
    };
  }
  return { check, cause: clockCause(offset, tolerance) };
}

function clockCause(offset: number, tolerance: number): DiagnosisCause {
  const size = Math.abs(offset);
  const side = offset > 0 ? 'behind' : 'ahead of';
  // Whole hours (give or take a minute) point at a time zone mistake rather than a drifting clock.
  const nearHour = size >= 3540 && Math.min(size % 1800, 1800 - (size % 1800)) <= 60;
  const zone = nearHour
    ? ` That is about ${Math.round(size / 360) / 10} h: a clock set to local time but read as UTC (or the reverse) does that.`
    : '';
  return {
    kind: 'clock-offset',
    offsetSeconds: offset,
    message: `X-Service-Timestamp is ${size} s ${side} this machine's clock; the receiver accepts under ${tolerance} s.${zone}`,
    fix:
      `If the delivery was sent just now, one clock is off by about ${size} s: sync this server's clock with NTP ` +
      `(timedatectl set-ntp true, chrony, or your host's time service) and check the sender's. ${REPLAY}`,
  };
}
