import { readFileSync } from 'node:fs';
import { type CapturedDelivery, parseCapture } from '../diagnose/index.js';
import { UsageError } from './usage-error.js';

/** The captured request `diagnose` was pointed at: a capture line, or a headers file and a body file. */
export function capturedRequest(flags: {
  capture?: string;
  line?: string;
  headers?: string;
  body?: string;
}): CapturedDelivery {
  if (flags.capture !== undefined) {
    if (flags.headers !== undefined || flags.body !== undefined)
      throw new UsageError('give either --capture FILE, or --headers FILE with --body FILE, not both.');
    return fromCapture(flags.capture, flags.line);
  }
  if (flags.headers === undefined)
    throw new UsageError(
      'missing request: give --capture FILE (a JSON line from the inspector or --json), or --headers FILE and --body FILE.',
    );
  const headers = parseHeaderFile(new TextDecoder().decode(read(flags.headers, '--headers')));
  if (flags.body === undefined)
    throw new UsageError('missing --body FILE: the raw body exactly as received (the signature covers every byte).');
  return { headers, body: read(flags.body, '--body') };
}

function read(path: string, flag: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path === '-' ? 0 : path));
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new UsageError(`cannot read ${flag} ${path} (${code}): check the path, relative to ${process.cwd()}.`);
  }
}

/** One line of a JSON-lines file: the last by default (the newest delivery), or `--line N`, counted from 1. */
function fromCapture(path: string, lineFlag: string | undefined): CapturedDelivery {
  const lines = new TextDecoder()
    .decode(read(path, '--capture'))
    .split('\n')
    .filter((line) => line.trim() !== '');
  if (lines.length === 0) throw new UsageError(`--capture ${path} is empty.`);
  const number = lineFlag === undefined ? lines.length : Number(lineFlag);
  if (!Number.isInteger(number) || number < 1 || number > lines.length)
    throw new UsageError(`--line must be a whole number from 1 to ${lines.length} (the lines of ${path}).`);
  try {
    return parseCapture(lines[number - 1]!);
  } catch (error) {
    throw new UsageError(`line ${number} of --capture ${path}: ${(error as Error).message}.`);
  }
}

/**
 * Headers as people save them: a JSON object, or `Name: value` lines as curl -v, a browser's
 * devtools or a raw HTTP dump print them (a request line, `> ` prefixes and blank lines are skipped).
 */
export function parseHeaderFile(text: string): Record<string, string | string[]> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && !isCurlVerbose(trimmed)) {
    try {
      return JSON.parse(trimmed) as Record<string, string | string[]>;
    } catch (error) {
      throw new UsageError(`--headers looks like JSON but does not parse (${(error as Error).message}).`);
    }
  }
  const headers: Record<string, string | string[]> = {};
  const lines = trimmed.split(/\r?\n/);
  // curl -v output mixes what was sent ("> "), what came back ("< "), its notes ("* "), its
  // progress meter, "[n bytes data]" markers and the answer's body: only the "> " lines are the request's.
  const curl = isCurlVerbose(trimmed);
  for (const [index, raw] of lines.entries()) {
    if (curl && !/^>( |$)/.test(raw)) continue;
    if (/^[<*]/.test(raw)) continue;
    const line = raw.replace(/^> ?/, '');
    if (line.trim() === '' || /^[A-Z]+ \S+ HTTP\/[\d.]+$/.test(line) || /^HTTP\/[\d.]+ \d+/.test(line)) continue;
    const colon = line.indexOf(':');
    // The line is not echoed: it could hold the token.
    if (colon <= 0) throw new UsageError(`--headers: line ${index + 1} is not a "Name: value" line.`);
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const previous = headers[name];
    headers[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  if (Object.keys(headers).length === 0) throw new UsageError('--headers holds no header lines.');
  return headers;
}

/** curl -v's request line, "> POST /path HTTP/1.1", somewhere in the text. */
const isCurlVerbose = (text: string): boolean => /^> [A-Z]+ \S+ HTTP\/[\d.]+\r?$/m.test(text);

/** The latest time a Date can hold, in milliseconds (ECMAScript's limit, in the year 275760). */
const MAX_DATE_MS = 8.64e15;

/** `--now`: Unix seconds, or an ISO 8601 date; a usage error for anything a Date cannot hold. */
export function nowFrom(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  if (/^\d+$/.test(flag)) {
    const ms = Number(flag) * 1000;
    if (!(ms <= MAX_DATE_MS))
      throw new UsageError(
        `--now ${flag.length > 24 ? `${flag.slice(0, 24)}…` : flag} is out of range: give Unix seconds (10 digits today, e.g. ${Math.floor(Date.now() / 1000)}) or an ISO 8601 date.`,
      );
    return ms;
  }
  const parsed = Date.parse(flag);
  if (Number.isNaN(parsed))
    throw new UsageError(`--now must be Unix seconds or an ISO 8601 date such as 2026-01-31T12:00:00Z, got "${flag}".`);
  return parsed;
}
