import { type ProbeRow, probeEndpoint } from '../probe/index.js';
import { PROBE_HELP } from './help.js';
import { tokenFrom, urlFrom } from './inputs.js';
import { parseCommandLine, redacting, wholeNumber, writeJson, type Io } from './io.js';
import { PROFILE_OPTIONS, profileFrom } from './profile-flags.js';
import { EXIT, Inputs } from './usage-error.js';

const OPTIONS = {
  'token-env': { type: 'string' },
  writes: { type: 'boolean' },
  ...PROFILE_OPTIONS,
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const NAME_WIDTH = 22;

/** `probe <url>`: the contract's conformance check against a running endpoint, as a table. Exit 1 on a failed row. */
export async function probeCommand(args: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseCommandLine(args, OPTIONS, 'probe');
  if (flags.help) {
    io.stdout(PROBE_HELP);
    return EXIT.delivered;
  }
  // Every input is read before any is refused, so one run names every mistake.
  const inputs = new Inputs();
  if (positionals.length !== 1)
    inputs.add(
      positionals.length === 0
        ? "missing URL: webhook-cms-receiver probe https://example.com/webhook (the endpoint's full address)"
        : `probe takes one URL, got ${positionals.length} arguments`,
    );
  const url = positionals.length === 1 ? inputs.take(() => urlFrom(positionals[0])) : undefined;
  const token = inputs.take(() => tokenFrom(flags['token-env'], io.env));
  const timeoutMs = inputs.take(() => wholeNumber(flags['timeout-ms'], '--timeout-ms', 1));
  const profile = inputs.take(() => profileFrom(flags));
  inputs.check();
  const out = redacting(io, token);
  const writes = flags.writes === true;
  if (!flags.json) {
    const mode = writes
      ? 'with writes: a probe article is synced and trashed'
      : 'read-only: only test events and refusals';
    out.stdout(
      `Probing ${url} against the contract (${mode})\n\n  ${'result'.padEnd(7)}${'check'.padEnd(NAME_WIDTH)}reason\n`,
    );
  }
  const result = await probeEndpoint(url!, {
    token: token!,
    writes,
    timeoutMs,
    ...(profile ? { profile } : {}),
    onRow: flags.json ? undefined : (row) => out.stdout(rowLine(row)),
  });
  if (flags.json) writeJson(out, { ...result, writes });
  else out.stdout(`\n${totals(result.rows)}\n`);
  return result.ok ? EXIT.delivered : EXIT.failed;
}

function rowLine(row: ProbeRow): string {
  const result = row.result === 'fail' ? 'FAIL' : row.result;
  return `  ${result.padEnd(7)}${row.name.padEnd(NAME_WIDTH)}${row.reason}\n`;
}

function totals(rows: ProbeRow[]): string {
  const count = (result: ProbeRow['result']) => rows.filter((row) => row.result === result).length;
  const line = `${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail`;
  if (count('fail') === 0) return `ok: ${line}`;
  const failed = rows.filter((row) => row.result === 'fail').map((row) => row.name);
  return `failed: ${line} (${failed.join(', ')})`;
}
