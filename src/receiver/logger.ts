import { isWebhookError } from '../errors/webhook-error.js';
import { describeThrown } from '../internal/describe.js';

/**
 * Where the receiver logs when no hook takes an event: `console` (the default), any object
 * with `warn` and `error` (pino, a framework's logger), or `false` for nothing. A logger with a
 * `child` method counts as structured and gets a fields object, then the message, as pino
 * takes them; winston takes the message first, so wrap it:
 * `{ warn: (fields, message) => log.warn(message, fields), error: (fields, message) => log.error(message, fields) }`.
 *
 * @example
 * ```ts
 * createReceiver({ token, logger: pino() });
 * createReceiver({ token, logger: fastify.log });
 * ```
 */
export interface Logger {
  warn(...args: never[]): unknown;
  error(...args: never[]): unknown;
  child?: unknown;
}

/** What the receiver says in a log line: never the token, a signature or the payload. */
export interface LogFields {
  status?: number;
  code?: string;
  reason?: string;
  deliveryId?: string | null;
  event?: string;
  /** Tenant mode: the tenant a line is about. */
  tenant?: string;
  /** How many lines with this code were left out over the last minute. */
  omitted?: number;
  /** Which token (0: the first) signed the deliveries a line is about. */
  tokenIndex?: number;
  /** How many deliveries a line is about. */
  deliveries?: number;
  err?: unknown;
}

/** The receiver's side of a logger: one call per line, whatever the logger's shape. */
export interface ReceiverLog {
  warn(message: string, fields: LogFields): void;
  error(message: string, fields: LogFields): void;
}

const PREFIX = 'webhook-cms-receiver:';
const SILENT: ReceiverLog = { warn() {}, error() {} };

/** Adapts the `logger` option. Never throws: a logger that does is not allowed to change an answer. */
export function receiverLog(logger: Logger | false | undefined): ReceiverLog {
  if (logger === false) return SILENT;
  const target = (logger ?? console) as { warn(...args: unknown[]): unknown; error(...args: unknown[]): unknown };
  const structured = typeof (logger as { child?: unknown } | undefined)?.child === 'function';
  const write = (level: 'warn' | 'error', message: string, fields: LogFields): void => {
    try {
      if (structured) target[level](fields, message);
      else target[level](textLine(message, fields));
    } catch {
      // A broken logger must not turn a delivery into a failure.
    }
  };
  return {
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** One line for `console`: the message, the fields that matter, and an Error's stack. */
function textLine(message: string, fields: LogFields): string {
  const parts = [`${PREFIX} ${message}`];
  if (fields.omitted) parts.push(`(${fields.omitted} more with this code in the last minute not logged)`);
  const { err } = fields;
  if (err instanceof Error && !isWebhookError(err) && err.stack) parts.push(`\n${err.stack}`);
  else if (err !== undefined && !isWebhookError(err)) parts.push(describeThrown(err));
  return parts.join(' ');
}
