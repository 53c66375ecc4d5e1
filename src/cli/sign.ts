import { eventNameOf } from '../testing/sign-delivery.js';
import { captureRecord } from '../testing/diagnose-capture.js';
import { signature } from '../testing/sign-delivery.js';
import { SIGN_HELP } from './help.js';
import { eventFrom, readFile, samplePayload, tokenFrom, urlFrom } from './inputs.js';
import { parseFlags, redacting, wholeNumber, writeJson, type Io } from './io.js';
import { EXIT, UsageError } from './usage-error.js';

const OPTIONS = {
  'token-env': { type: 'string' },
  file: { type: 'string' },
  event: { type: 'string' },
  timestamp: { type: 'string' },
  'delivery-id': { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const TOLERANCE_SECONDS = 300;

/** `sign`: prints the headers the service would send with a body, and a curl command sending it. */
export function signCommand(args: string[], io: Io): number {
  const flags = parseFlags(args, OPTIONS);
  if (flags.help) {
    io.stdout(SIGN_HELP);
    return EXIT.delivered;
  }
  const token = tokenFrom(flags['token-env'], io.env);
  const variable = flags['token-env'] ?? 'WEBHOOK_TOKEN';
  const out = redacting(io, token);
  if ((flags.file === undefined) === (flags.event === undefined))
    throw new UsageError(
      'give exactly one of --file BODY (the exact body to sign) or --event EVENT (a sample envelope).',
    );
  const url = urlFrom(flags.url ?? 'http://127.0.0.1:3000/webhook');
  const now = Math.floor(Date.now() / 1000);
  const timestamp = String(wholeNumber(flags.timestamp, '--timestamp', 0) ?? now);
  const event = eventFrom(flags.event);
  const body = event ? new TextEncoder().encode(JSON.stringify(samplePayload(event))) : readFile(flags.file!);
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['X-Service-Timestamp', timestamp],
    ['X-Service-Signature', `sha256=${signature(token, timestamp, body)}`],
  ];
  const eventName = event ?? eventNameOf(body);
  if (eventName) headers.push(['X-Service-Event', eventName]);
  headers.push(['X-Service-Delivery-Id', flags['delivery-id'] ?? globalThis.crypto.randomUUID()]);

  const data = event ? quote(new TextDecoder().decode(body)) : `@${quote(flags.file!)}`;
  const lines = [
    `curl -sS -X POST ${quote(url)}`,
    `-H "Authorization: Bearer $${variable}"`,
    ...headers.map(([name, value]) => `-H ${quote(`${name}: ${value}`)}`),
    `--data-binary ${data}`,
  ];
  if (flags.json) {
    // A capture line (diagnose --capture reads it) with the token masked, plus the curl command.
    const all = { Authorization: 'Bearer ***', ...Object.fromEntries(headers) };
    writeJson(out, { url, ...captureRecord({ headers: all, body }), curl: lines.join(' ') });
    return EXIT.delivered;
  }
  out.stdout(`Authorization: Bearer ***\n${headers.map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n`);
  if (Math.abs(now - Number(timestamp)) >= TOLERANCE_SECONDS)
    out.stdout(
      `# This timestamp is ${TOLERANCE_SECONDS} s or more from now: the endpoint will answer 403 Request expired.\n`,
    );
  out.stdout(
    `# Valid for ${TOLERANCE_SECONDS} s after the timestamp. The command reads the token from $${variable}: export it first.\n`,
  );
  out.stdout(`${lines.join(' \\\n  ')}\n`);
  return EXIT.delivered;
}

/** Single-quotes for a POSIX shell: nothing inside is expanded. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
