import { testPayload } from '../sender/factories.js';
import type { ProbeContext, ProbeRow } from './context.js';
import { type ClockReading, clockExplains, offsetText, readClock } from './clock.js';
import { answerText, type Exchange, errorOf } from './exchange.js';
import { signature, signDelivery } from '../sender/sign-delivery.js';

/** Far enough outside the 300 s window that up to 300 s of skew between the probe and the endpoint still fails it. */
const SKEW_SECONDS = 600;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The rows that change no data: every delivery is a `test` event, so even an endpoint that
 * wrongly accepts one of the refusals only acknowledges a test.
 */
export async function readOnlyRows(ctx: ProbeContext): Promise<ProbeRow[]> {
  const rows: ProbeRow[] = [];
  const test = signDelivery({ token: ctx.token, payload: testPayload() });
  const testAnswer = await ctx.post('test event', test);
  const clock = readClock(testAnswer);
  rows.push(testEventRow(testAnswer, ctx, clock));
  const deliveryId = test.headers['X-Service-Delivery-Id'];
  const again = signDelivery({ token: ctx.token, payload: test.body, deliveryId });
  rows.push(redeliveryRow(await ctx.post('redelivery', again), ctx, clock));

  const wrong = signDelivery({
    token: `webhook-cms-probe-wrong-${globalThis.crypto.randomUUID()}`,
    payload: testPayload(),
  });
  rows.push(
    refusal(
      'wrong token',
      await ctx.post('wrong token', wrong),
      ctx,
      401,
      'accepted a delivery made with another token: anyone can send this endpoint deliveries',
    ),
  );

  const badSignature = signDelivery({ token: ctx.token, payload: testPayload() });
  const timestamp = badSignature.headers['X-Service-Timestamp']!;
  badSignature.headers['X-Service-Signature'] =
    `sha256=${signature(ctx.token, timestamp, `${String(badSignature.body)} `)}`;
  rows.push(
    refusal(
      'bad signature',
      await ctx.post('bad signature', badSignature),
      ctx,
      403,
      'accepted a signature made over other bytes: the body is not verified, so a changed article would be published',
      'Invalid signature',
    ),
  );

  for (const [name, offset] of [
    ['stale timestamp', -SKEW_SECONDS],
    ['future timestamp', SKEW_SECONDS],
  ] as const) {
    const delivery = signDelivery({ token: ctx.token, payload: testPayload(), timestamp: nowSeconds() + offset });
    const side = offset < 0 ? `${SKEW_SECONDS} s old` : `${SKEW_SECONDS} s in the future`;
    // An endpoint whose clock is off accepts one of the two because of its clock, not a missing check.
    const why = clockExplains(clock, offset < 0 ? 'old' : 'future') ?? 'a captured delivery can be replayed later';
    rows.push(refusal(name, await ctx.post(name, delivery), ctx, 403, `accepted a timestamp ${side}: ${why}`));
  }
  const loose = signDelivery({ token: ctx.token, payload: testPayload(), timestamp: `${nowSeconds()}.5` });
  rows.push(
    refusal(
      'bad timestamp format',
      await ctx.post('bad timestamp format', loose),
      ctx,
      403,
      'accepted X-Service-Timestamp "<seconds>.5": the timestamp is parsed loosely instead of as ASCII digits',
    ),
  );
  rows.push(nonPostRow(await ctx.get('GET'), ctx));
  return rows;
}

function testEventRow(answer: Exchange, ctx: ProbeContext, clock: ClockReading): ProbeRow {
  const name = 'test event';
  const text = answerText(answer, ctx.url);
  if (answer.status === 200) {
    if ((answer.body as { ok?: unknown } | null)?.ok === true) return { name, result: 'pass', reason: text };
    return {
      name,
      result: 'warn',
      reason: `${text}; the service accepts any 200, but the contract answers {"ok": true}`,
    };
  }
  return { name, result: 'fail', reason: `${text}${whyRefused(answer, clock)}; Test Connection needs 200` };
}

/** What a refusal of a correctly signed delivery points at. */
function whyRefused(answer: Exchange, clock: ClockReading): string {
  const error = errorOf(answer);
  if (answer.status === 401)
    return ': the endpoint does not take this token: is its WEBHOOK_TOKEN the one the probe was given?';
  if (error === 'Request expired') {
    const measured = clock.offsetSeconds === null ? '' : ` (its Date header: ${offsetText(clock.offsetSeconds)})`;
    return `: the endpoint's clock is more than 300 s from this machine's${measured}: sync both with NTP`;
  }
  if (answer.status === 403)
    return ': a correctly signed delivery was refused: does the endpoint verify the raw body bytes?';
  if (answer.status !== null && answer.status >= 500) return ': the endpoint failed; see its log';
  return '';
}

function redeliveryRow(answer: Exchange, ctx: ProbeContext, clock: ClockReading): ProbeRow {
  const name = 'redelivery';
  const text = answerText(answer, ctx.url);
  if (answer.status === 200)
    return { name, result: 'pass', reason: `${text}; the same delivery id, re-signed, is still acknowledged` };
  const why =
    answer.status === 409
      ? ': the first copy was answered already, so it is not in progress'
      : whyRefused(answer, clock);
  return { name, result: 'fail', reason: `${text}${why}; the service retries a delivery id until it gets a 2xx` };
}

/**
 * A row that must be refused with `expected`. With `expectedError`, a JSON `error` naming
 * another check fails the row: that check refused first, so this one was never tested.
 */
function refusal(
  name: string,
  answer: Exchange,
  ctx: ProbeContext,
  expected: 401 | 403,
  ifAccepted: string,
  expectedError?: string,
): ProbeRow {
  const text = answerText(answer, ctx.url);
  const error = errorOf(answer);
  if (answer.status === expected && expectedError !== undefined && error !== undefined && error !== expectedError)
    return { name, result: 'fail', reason: `${text}: expected ${expected} ${expectedError}; ${otherCheck(error)}` };
  if (answer.status === expected) return { name, result: 'pass', reason: text };
  const label = expected === 401 ? '401 Invalid token' : '403';
  if (answer.status !== null && answer.status >= 200 && answer.status < 300)
    return { name, result: 'fail', reason: `${text}: ${ifAccepted}` };
  if (answer.status === 401 && expected === 403)
    return {
      name,
      result: 'fail',
      reason: `${text}: expected 403; 401 means a wrong token, and a developer reading it checks the token instead of the signature or the clock`,
    };
  if (answer.status === 403 && expected === 401)
    return { name, result: 'fail', reason: `${text}: expected 401; 403 is for a bad timestamp or signature` };
  return { name, result: 'fail', reason: `${text}: expected ${label}` };
}

/** What a refusal by another check than the one a row tests means. */
function otherCheck(error: string): string {
  if (error === 'Request expired')
    return "the timestamp, made just now, was refused as expired before the signature was checked, so this row proves nothing about the signature check: the endpoint's clock is off by 300 s or more (sync it with NTP)";
  return `"${error}" means another check refused it first, so this row proves nothing about the one it tests`;
}

function nonPostRow(answer: Exchange, ctx: ProbeContext): ProbeRow {
  const name = 'GET';
  const text = answerText(answer, ctx.url, 'GET');
  const allowsPost = (answer.allow ?? '').split(',').some((method) => method.trim().toUpperCase() === 'POST');
  if (answer.status === 405 && allowsPost) return { name, result: 'pass', reason: `${text}, Allow: ${answer.allow}` };
  // A framework's own 405 for a method the route does not take (Next.js route handlers answer an
  // empty 405 with no Allow): the route takes POST, which is all the service sends.
  if (answer.status === 405 && (answer.allow ?? '').trim() === '')
    return {
      name,
      result: 'pass',
      reason: `${text}, no Allow header: what a framework answers for a method the route does not take (Next.js does), which is fine: the service only POSTs`,
    };
  if (answer.status === 405)
    return {
      name,
      result: 'warn',
      reason: `${text}, Allow: ${answer.allow}: it does not name POST, though the route takes POST; the contract answers Allow: POST`,
    };
  // The README's own pattern: app.post (Express, Hono, Fastify, h3) answers other methods 404.
  if (answer.status === 404)
    return {
      name,
      result: 'pass',
      reason: `${text}: the route takes only POST (app.post, as in the README), which is fine: the service only POSTs`,
    };
  // The service only POSTs, so a route registered for POST alone (404 or a page for GET) still receives every delivery.
  return {
    name,
    result: 'warn',
    reason: `${text}; the contract answers 405 with Allow: POST (a handler mounted for every method does); harmless to the service, which only POSTs`,
  };
}
