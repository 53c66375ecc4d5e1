import { type Diagnosis, diagnoseDelivery } from '../diagnose/index.js';
import { capturedRequest, nowFrom } from './diagnose-input.js';
import { withRecordedOutcome } from './diagnose-recorded.js';
import { DIAGNOSE_HELP } from './help.js';
import { tokenFrom } from './inputs.js';
import { parseFlags, redacting, writeJson, type Io } from './io.js';
import { EXIT, Inputs } from './usage-error.js';

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
  const flags = parseFlags(args, OPTIONS, 'diagnose');
  if (flags.help) {
    io.stdout(DIAGNOSE_HELP);
    return EXIT.delivered;
  }
  // Every input is read before any is refused, so one run names every mistake.
  const inputs = new Inputs();
  const token = inputs.take(() => tokenFrom(flags['token-env'], io.env));
  const captured = inputs.take(() => capturedRequest(flags));
  const given = inputs.take(() => nowFrom(flags.now));
  inputs.check();
  const out = redacting(io, token);
  const request = captured!;
  // A capture is judged as of when it arrived, unless told otherwise: the question is why it was refused then.
  const now = given ?? request.receivedAt ?? Date.now();
  const clock = given !== undefined ? '--now' : request.receivedAt !== undefined ? "the capture's receivedAt" : 'now';
  // A cut body would send the signature analysis after transformations that are not there.
  const body = request.bodyTruncated ? undefined : request.body;
  const diagnosis = withRecordedOutcome(
    await diagnoseDelivery({ headers: request.headers, body, token: token!, now }),
    request.recorded,
  );
  if (flags.json) writeJson(out, { ...diagnosis, now: new Date(now).toISOString() });
  else {
    const fromRecord = request.recorded !== undefined && diagnosis.verdict.code === request.recorded.code;
    out.stdout(report(diagnosis, `${new Date(now).toISOString()} (${clock})`, fromRecord));
    if (request.bodyTruncated)
      out.stdout('\nThe capture kept only the start of the body, so the body checks were skipped.\n');
  }
  return diagnosis.ok ? EXIT.delivered : EXIT.failed;
}

function report(diagnosis: Diagnosis, when: string, recorded: boolean): string {
  const { verdict, checks, cause } = diagnosis;
  const answer =
    verdict.status === null
      ? 'cannot tell: the capture holds no body'
      : verdict.code === null
        ? '200: accepted'
        : `${verdict.status} ${verdict.error} (${verdict.code})${recorded ? ', as recorded by the receiver' : ''}`;
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
