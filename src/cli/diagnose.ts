import { diagnoseDelivery } from '../testing/diagnose.js';
import type { Diagnosis } from '../testing/diagnose-result.js';
import { capturedRequest, nowFrom } from './diagnose-input.js';
import { DIAGNOSE_HELP } from './help.js';
import { tokenFrom } from './inputs.js';
import { parseFlags, redacting, writeJson, type Io } from './io.js';
import { EXIT } from './usage-error.js';

const OPTIONS = {
  'token-env': { type: 'string' },
  capture: { type: 'string' },
  line: { type: 'string' },
  headers: { type: 'string' },
  body: { type: 'string' },
  now: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `diagnose`: why a captured request is refused, check by check, with the likely cause. Exit 0 accepted, 1 refused. */
export async function diagnoseCommand(args: string[], io: Io): Promise<number> {
  const flags = parseFlags(args, OPTIONS);
  if (flags.help) {
    io.stdout(DIAGNOSE_HELP);
    return EXIT.delivered;
  }
  const token = tokenFrom(flags['token-env'], io.env);
  const out = redacting(io, token);
  const request = capturedRequest(flags);
  // A capture is judged as of when it arrived, unless told otherwise: the question is why it was refused then.
  const given = nowFrom(flags.now);
  const now = given ?? request.receivedAt ?? Date.now();
  const clock = given !== undefined ? '--now' : request.receivedAt !== undefined ? "the capture's receivedAt" : 'now';
  // A cut body would send the signature analysis after transformations that are not there.
  const body = request.bodyTruncated ? undefined : request.body;
  const diagnosis = await diagnoseDelivery({ headers: request.headers, body, token, now });
  if (flags.json) writeJson(out, { ...diagnosis, now: new Date(now).toISOString() });
  else {
    out.stdout(report(diagnosis, `${new Date(now).toISOString()} (${clock})`));
    if (request.bodyTruncated)
      out.stdout('\nThe capture kept only the start of the body, so the body checks were skipped.\n');
  }
  return diagnosis.ok ? EXIT.delivered : EXIT.failed;
}

function report(diagnosis: Diagnosis, when: string): string {
  const { verdict, checks, cause } = diagnosis;
  const answer =
    verdict.status === null
      ? 'cannot tell: the capture holds no body'
      : verdict.code === null
        ? '200: accepted'
        : `${verdict.status} ${verdict.error} (${verdict.code})`;
  const lines = [`verdict: ${answer}, judged at ${when}`, ''];
  const width = Math.max(...checks.map((check) => check.name.length)) + 2;
  for (const check of checks) {
    const outcome = check.outcome === 'fail' ? 'FAIL' : check.outcome;
    lines.push(`  ${outcome.padEnd(6)}${check.name.padEnd(width)}${check.detail}`);
  }
  if (cause) {
    const named = cause.transformation ? `${cause.kind}: ${cause.transformation}` : cause.kind;
    lines.push('', `likely cause (${named}):`, `  ${cause.message}`, '', 'fix:', `  ${cause.fix}`);
  }
  return `${lines.join('\n')}\n`;
}
