import { captureRecord } from '../diagnose/index.js';
import { signature } from '../sender/index.js';
import { eventNameOf } from '../sender/index.js';
import { SIGN_HELP } from './help.js';
import { eventFrom, readFile, samplePayload, tokenFrom, urlFrom } from './inputs.js';
import { parseFlags, redacting, wholeNumber, writeJson, type Io } from './io.js';
import { EXIT, Inputs } from './usage-error.js';

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
  const flags = parseFlags(args, OPTIONS, 'sign');
  if (flags.help) {
    io.stdout(SIGN_HELP);
    return EXIT.delivered;
  }
  // Every input is read before any is refused, so one run names every mistake.
  const inputs = new Inputs();
  const token = inputs.take(() => tokenFrom(flags['token-env'], io.env));
  const variable = flags['token-env'] ?? 'WEBHOOK_TOKEN';
  if (flags.file === undefined && flags.event === undefined)
    inputs.add(
      'missing --file or --event: give exactly one of --file BODY (the exact body to sign) or --event EVENT (a sample envelope).',
    );
  else if (flags.file !== undefined && flags.event !== undefined)
    inputs.add(
      'give exactly one of --file BODY (the exact body to sign) or --event EVENT (a sample envelope), not both.',
    );
  const url = inputs.take(() => urlFrom(flags.url ?? 'http://127.0.0.1:3000/webhook'));
  const now = Math.floor(Date.now() / 1000);
  const stamp = inputs.take(() => wholeNumber(flags.timestamp, '--timestamp', 0));
  const event = inputs.take(() => eventFrom(flags.event));
  const file =
    flags.event === undefined && flags.file !== undefined ? inputs.take(() => readFile(flags.file!)) : undefined;
  inputs.check();
  const out = redacting(io, token);
  const timestamp = String(stamp ?? now);
  const body = event ? new TextEncoder().encode(JSON.stringify(samplePayload(event))) : file!;
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['X-Service-Timestamp', timestamp],
    ['X-Service-Signature', `sha256=${signature(token!, timestamp, body)}`],
  ];
  const eventName = event ?? eventNameOf(body);
  if (eventName) headers.push(['X-Service-Event', eventName]);
  headers.push(['X-Service-Delivery-Id', flags['delivery-id'] ?? globalThis.crypto.randomUUID()]);

  const data = event ? quote(new TextDecoder().decode(body)) : `@${quote(flags.file!)}`;
  const lines = [
    `curl -sS -X POST ${quote(url!)}`,
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
