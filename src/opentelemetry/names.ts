/** Span, attribute and metric names: the package's documented convention (OpenTelemetry has none for webhooks). */
export const SPAN_RECEIVE = 'webhook.receive';
export const SPAN_PROCESS = 'webhook.process';
export const SPAN_HANDLER = 'webhook.handler';
export const SPAN_ENQUEUE = 'webhook.enqueue';

export const ATTR_EVENT = 'webhook.event';
export const ATTR_DELIVERY_ID = 'webhook.delivery_id';
export const ATTR_OUTCOME = 'webhook.outcome';
export const ATTR_REFUSAL_CODE = 'webhook.refusal.code';
/** Which configured token matched (0: the current one), so a rotation can tell the old one is unused. */
export const ATTR_TOKEN_INDEX = 'webhook.token.index';
/** Tenant mode: the tenant's id. On spans only: a metric attribute per site would multiply every series. */
export const ATTR_TENANT_ID = 'webhook.tenant.id';
export const ATTR_STATUS = 'http.response.status_code';
// The semantic conventions' general attribute for what kind of failure it was: here the stable error code.
export const ATTR_ERROR_TYPE = 'error.type';

export const METRIC_DELIVERIES = 'webhook.deliveries';
export const METRIC_HANDLER_DURATION = 'webhook.handler.duration';
export const METRIC_VERIFY_DURATION = 'webhook.verify.duration';
export const METRIC_DELIVERY_LAG = 'webhook.delivery.lag';

/** The HTTP server duration buckets of the semantic conventions: they end at the service's 10 s wait. */
export const HANDLER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Verification takes microseconds at 1 KiB and milliseconds at 10 MiB; anything near 10 s is a stalled host. */
export const VERIFY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * Retries arrive 2, 5 and 10 s after a 10 s timeout, so late copies land between 2 and 47 s;
 * the 60 s edge is where an alert on lag starts, and 300 s is `toleranceSeconds`' default,
 * past which a delivery is refused anyway.
 */
export const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

/** Refused delivery ids are unverified header text: kept short in a span. */
export const MAX_UNVERIFIED_ID = 128;

export const METRIC_QUEUE_DEPTH = 'webhook.queue.depth';
export const METRIC_QUEUE_OLDEST_AGE = 'webhook.queue.oldest_age';
