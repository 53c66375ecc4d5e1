import { deliver, type DeliveryAttempt, type DeliveryResult } from '../sender/index.js';
import { redirectReason } from '../sender/index.js';
import { SEND_HELP } from './help.js';
import { sendPayload, tokenFrom, urlFrom } from './inputs.js';
import { parseFlags, redacting, wholeNumber, writeJson, type Flags, type Io } from './io.js';
import { PROFILE_OPTIONS, profileFrom, withProfile } from './profile-flags.js';
import { EXIT, Inputs } from './usage-error.js';

const OPTIONS = {
  url: { type: 'string' },
  'token-env': { type: 'string' },
  event: { type: 'string' },
  file: { type: 'string' },
  'delivery-id': { type: 'string' },
  repeat: { type: 'string' },
  tamper: { type: 'boolean' },
  stale: { type: 'string' },
  'wrong-token': { type: 'boolean' },
  'no-retry': { type: 'boolean' },
  ...PROFILE_OPTIONS,
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type SendFlags = Flags<typeof OPTIONS>;

/** `send`: delivers like the service, printing each attempt as it happens. Resolves to the exit code. */
export async function sendCommand(args: string[], io: Io): Promise<number> {
  const flags = parseFlags(args, OPTIONS, 'send');
  if (flags.help) {
    io.stdout(SEND_HELP);
    return EXIT.delivered;
  }
  // Every input is read before any is refused, so one run names every mistake.
  const inputs = new Inputs();
  const token = inputs.take(() => tokenFrom(flags['token-env'], io.env));
  const url = inputs.take(() => urlFrom(flags.url));
  const profile = inputs.take(() => profileFrom(flags));
  const read = inputs.take(() => sendPayload(flags.event, flags.file));
  const sent = read && inputs.take(() => ({ ...read, payload: withProfile(read.payload, profile) }));
  const repeat = inputs.take(() => wholeNumber(flags.repeat, '--repeat', 1)) ?? 1;
  const staleBy = inputs.take(() => wholeNumber(flags.stale, '--stale', 0));
  inputs.check();
  const out = redacting(io, token);
  const { payload, event } = sent!;
  const deliveryId = flags['delivery-id'] ?? globalThis.crypto.randomUUID();
  const json = flags.json === true;
  if (!json) out.stdout(`POST ${url}\n  event ${event}, delivery ${deliveryId}, Authorization: Bearer ***\n`);
  let code: number = EXIT.delivered;
  for (let copy = 1; copy <= repeat; copy++) {
    if (repeat > 1 && !json) out.stdout(`copy ${copy} of ${repeat}\n`);
    const result = await deliver(url!, {
      token: token!,
      payload,
      deliveryId,
      tamper: flags.tamper,
      wrongToken: flags['wrong-token'],
      staleBy,
      maxAttempts: flags['no-retry'] ? 1 : undefined,
      onAttempt: json ? undefined : (attempt) => out.stdout(attemptLine(attempt, url!)),
    });
    if (json) writeJson(out, jsonLine(result, url!, event, copy));
    else out.stdout(outcomeLine(result, flags));
    if (result.outcome !== 'delivered') code = EXIT.failed;
  }
  return code;
}

/** One delivery as a JSON line: the summary first, then every attempt. */
function jsonLine(result: DeliveryResult, url: string, event: string, copy: number) {
  const { outcome, deliveryId, summary, attempts } = result;
  const hint = attempts.some((attempt) => attempt.status === 404) ? notFoundHint(url) : undefined;
  return { url, event, deliveryId, copy, outcome, summary, ...(hint ? { hint } : {}), attempts };
}

const notFoundHint = (url: string) => `is the path right? tried POST ${url}`;

function attemptLine(attempt: DeliveryAttempt, url: string): string {
  const { status } = attempt;
  const cut = attempt.bodyTruncated ? ' (only the first 64 KiB read)' : '';
  const answer =
    status === null
      ? `no answer after ${attempt.elapsedMs} ms: ${attempt.error}`
      : status >= 300 && status < 400
        ? `${redirectReason(attempt)} (in ${attempt.elapsedMs} ms)`
        : `${status} in ${attempt.elapsedMs} ms  ${shortBody(attempt.body)}${cut}${status === 404 ? `: ${notFoundHint(url)}` : ''}`;
  const next = attempt.retryInMs === null ? '' : `  (retrying in ${attempt.retryInMs / 1000} s)`;
  return `  attempt ${attempt.number}: ${answer}${next}\n`;
}

/** The answer's body in a line: JSON as it came, an HTML page (a framework's 404) only named. */
function shortBody(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (typeof body === 'string' && /^\s*</.test(body)) return `(an HTML page, ${body.length} characters)`;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function outcomeLine(result: DeliveryResult, flags: SendFlags): string {
  const last = result.attempts[result.attempts.length - 1]!;
  const { summary } = result;
  if (summary.ok) {
    const duplicate = summary.duplicate ? ' (a duplicate: the endpoint had already handled this delivery id)' : '';
    const url = summary.publishedUrl ? `, published_url ${summary.publishedUrl}` : '';
    return `delivered${url}${duplicate}\n`;
  }
  if (result.outcome === 'refused')
    return `refused with ${last.status}; the service never retries 401 or 403. ${refusalHint(last.status!, flags)}\n`;
  const why = summary.reason ? `\n  last answer: ${summary.reason}` : '';
  return `gave up after ${result.attempts.length} attempt(s); the service would now leave the delivery to its scheduler and, after repeated failures, mark the article's sync as error.${why}\n`;
}

function refusalHint(status: number, flags: SendFlags): string {
  if (status === 401 && flags['wrong-token']) return 'As expected: the token was wrong.';
  if (status === 403 && flags.tamper) return 'As expected: the body was tampered with.';
  if (status === 403 && flags.stale !== undefined) return 'As expected if the timestamp is 300 s old or more.';
  if (status === 401) return 'Check that the endpoint uses the same token (its WEBHOOK_TOKEN).';
  return "Check the endpoint's clock (Request expired) and that it verifies the raw body bytes (Invalid signature); webhook-cms-receiver diagnose explains a captured request.";
}
