import type { DeliveryAttempt, DeliveryResult, DeliverySummary } from './deliver-types.js';

/** How an attempt ends the delivery, or undefined when the service would try again. */
export function outcomeOf(status: number | null, last: boolean): DeliveryResult['outcome'] | undefined {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  if (status === 401 || status === 403) return 'refused';
  return last ? 'gave-up' : undefined;
}

/** The result of a finished delivery, its summary included. */
export function result(
  outcome: DeliveryResult['outcome'],
  deliveryId: string,
  attempts: DeliveryAttempt[],
  url: string,
): DeliveryResult {
  const last = attempts[attempts.length - 1]!;
  const answer = last.body as { published_url?: unknown; duplicate?: unknown; stale?: unknown } | null;
  const ok = outcome === 'delivered';
  const publishedUrl = ok && typeof answer?.published_url === 'string' ? answer.published_url : null;
  const summary: DeliverySummary = {
    ok,
    duplicate: ok && answer?.duplicate === true,
    status: last.status,
    publishedUrl,
  };
  if (ok && answer?.stale === true) summary.stale = true;
  if (!ok) summary.reason = failureReason(last, url);
  return { outcome, deliveryId, attempts, ...(publishedUrl === null ? {} : { publishedUrl }), summary };
}

/**
 * Why an attempt that got no 2xx failed, in one sentence that names the fix: what a test's diff
 * and the CLI show.
 */
export function failureReason(attempt: DeliveryAttempt, url: string): string {
  const { status } = attempt;
  if (status === null) return `no answer: ${attempt.error}`;
  const error = (attempt.body as { error?: unknown } | null)?.error;
  const said = `${status}${typeof error === 'string' ? ` ${error}` : ''}`;
  if (status >= 300 && status < 400) return redirectReason(attempt);
  if (status === 401) return `${said}: the endpoint does not take this token; is its WEBHOOK_TOKEN the one given here?`;
  if (error === 'Request expired')
    return `${said}: the endpoint's clock and this machine's differ by 300 s or more (or the timestamp was back-dated); sync both with NTP`;
  if (status === 403)
    return `${said}: the signature or the timestamp did not verify; diagnoseDelivery (or the CLI's diagnose) names the cause`;
  if (status === 404) return `${said}: is the path right? tried POST ${url}`;
  if (status === 500 && error === 'Server misconfigured')
    return `${said}: the endpoint's framework read the body before the webhook route (a JSON or text body parser), so the signature over the raw bytes cannot be checked; mount the body parser after the webhook route, or exclude that path from it (the endpoint's log line names the parser)`;
  if (status >= 500)
    return `${said}: the endpoint failed while handling the delivery; see the server's log (with no onError, the receiver logs the handler's or the store's error there with console.error; with onError, your onError got it)`;
  return `${said}: the service only counts a 2xx as delivered`;
}

/** A 3xx, with where it pointed: the service follows no redirect, so the endpoint's URL must be the final one. */
export function redirectReason(attempt: Pick<DeliveryAttempt, 'status' | 'location'>): string {
  const where = attempt.location ? `redirect to ${attempt.location}` : 'redirect without a Location';
  return `${attempt.status} ${where}: the service follows no redirect, so it counts this as a failure; give it the final URL`;
}
