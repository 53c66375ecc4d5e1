import type { LedgerQuery } from '../ledger/ledger-row.js';
import { tokenFrom, urlFrom } from './inputs.js';
import { parseCommandLine, redacting, wholeNumber, writeJson, type Io } from './io.js';
import { LEDGER_HELP } from './ledger-help.js';
import { redeliverRefusals } from './ledger-recover.js';
import { openLedger } from './ledger-source.js';
import { hoursText, resendText, rowsText } from './ledger-text.js';
import { EXIT, Inputs, UsageError } from './usage-error.js';

const OPTIONS = {
  'database-url': { type: 'string' },
  table: { type: 'string' },
  prefix: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  status: { type: 'string' },
  event: { type: 'string' },
  article: { type: 'string' },
  tenant: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  url: { type: 'string' },
  'token-env': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flag = keyof typeof OPTIONS;
const EVERY: Flag[] = ['database-url', 'table', 'prefix', 'json', 'help'];
/** The flags each subcommand reads: any other is a mistake worth saying, not silently ignoring. */
const FLAGS: Record<string, Flag[]> = {
  list: [...EVERY, 'since', 'until', 'status', 'event', 'article', 'tenant', 'limit', 'cursor'],
  summary: [...EVERY, 'since', 'until', 'tenant'],
  resend: [...EVERY, 'since', 'tenant'],
  recover: [...EVERY, 'since', 'url', 'token-env'],
};
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `ledger list|summary|resend|recover`: reads (and recovers from) a delivery ledger in a database. */
export async function ledgerCommand(args: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseCommandLine(args, OPTIONS, 'ledger');
  if (flags.help) {
    io.stdout(LEDGER_HELP);
    return EXIT.delivered;
  }
  const inputs = new Inputs();
  const [sub, ...extra] = positionals;
  if (sub === undefined || !(sub in FLAGS)) {
    throw new UsageError(
      sub === undefined
        ? 'missing a subcommand: list, summary, resend or recover'
        : `unknown ledger subcommand "${sub}": use list, summary, resend or recover`,
    );
  }
  if (extra.length > 0) inputs.add(`ledger ${sub} takes no arguments besides its flags, got "${extra[0]}"`);
  for (const name of Object.keys(flags) as Flag[]) {
    if (!FLAGS[sub]!.includes(name)) inputs.add(`--${name} does not apply to ledger ${sub}`);
  }
  const now = Date.now();
  const url = inputs.take(() => {
    const given = flags['database-url'] ?? io.env.LEDGER_URL ?? io.env.DATABASE_URL;
    if (given) return given;
    throw new UsageError("missing --database-url: the ledger's database (or set LEDGER_URL or DATABASE_URL)");
  });
  const since = inputs.take(() => timeFlag(flags.since, '--since', now));
  const until = inputs.take(() => timeFlag(flags.until, '--until', now));
  const status = inputs.take(() => statusFlag(flags.status));
  const limit = inputs.take(() => wholeNumber(flags.limit, '--limit', 1));
  const endpoint = sub === 'recover' ? inputs.take(() => urlFrom(flags.url)) : undefined;
  const token = sub === 'recover' ? inputs.take(() => tokenFrom(flags['token-env'], io.env)) : undefined;
  inputs.check();

  const out = redacting(io, token);
  let source: Awaited<ReturnType<typeof openLedger>>;
  try {
    source = await openLedger({ url: url!, table: flags.table, prefix: flags.prefix });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    out.stderr(`webhook-cms-receiver: could not open the ledger: ${messageOf(error)}\n`);
    return EXIT.failed;
  }
  const { ledger, store } = source;
  const range = { ...(since !== undefined ? { since } : {}), ...(flags.tenant ? { tenant: flags.tenant } : {}) };
  try {
    if (sub === 'list') {
      const query: LedgerQuery = { ...range };
      if (until !== undefined) query.until = until;
      if (status !== undefined) query.status = status;
      if (flags.event) query.event = flags.event;
      if (flags.article) query.article = flags.article;
      if (limit !== undefined) query.limit = limit;
      if (flags.cursor) query.cursor = flags.cursor;
      const page = await ledger.list(query);
      if (flags.json) writeJson(out, page);
      else {
        // One more read, only when a row says it was kept: whether it still is.
        const kept = page.rows.some((row) => row.kept)
          ? new Set((await store.refusals.list()).map((summary) => summary.id))
          : undefined;
        out.stdout(rowsText(page.rows, page.next, kept));
      }
      return EXIT.delivered;
    }
    if (sub === 'summary') {
      const hours = await ledger.summary(until !== undefined ? { ...range, until } : range);
      if (flags.json) writeJson(out, { hours });
      else out.stdout(hoursText(hours));
      return EXIT.delivered;
    }
    if (sub === 'resend') {
      const items = await ledger.resend(range);
      if (flags.json) writeJson(out, { resend: items });
      else out.stdout(resendText(items));
      return EXIT.delivered;
    }
    const report = await redeliverRefusals({ store, url: endpoint!, token: token!, since: since ?? 0 });
    if (flags.json) writeJson(out, report);
    else {
      out.stdout(`${report.recovered} recovered, ${report.failed} failed, ${report.unverified} still unverified\n`);
      if (report.failed > 0) out.stdout('The failed ones stay kept: fix the endpoint and run recover again.\n');
      if (report.unverified > 0) {
        out.stdout('No current token signed the unverified ones: re-send them from the dashboard (ledger resend).\n');
      }
    }
    return report.failed === 0 ? EXIT.delivered : EXIT.failed;
  } catch (error) {
    out.stderr(
      `webhook-cms-receiver: could not ${sub === 'recover' ? 'recover from' : 'read'} the ledger: ${messageOf(error)}\n`,
    );
    return EXIT.failed;
  } finally {
    await source.close().catch(() => {});
  }
}

/** An ISO time, or a duration back from `now` (90m, 24h, 7d), as epoch ms. */
function timeFlag(value: string | undefined, flag: string, now: number): number | undefined {
  if (value === undefined) return undefined;
  const duration = /^(\d+)([smhd])$/.exec(value);
  if (duration) return now - Number(duration[1]) * UNITS[duration[2]!]!;
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(time)) return time;
  throw new UsageError(
    `${flag} takes an ISO time (2026-11-28T09:00Z) or a duration such as 90m, 24h or 7d, got "${value}"`,
  );
}

function statusFlag(value: string | undefined): LedgerQuery['status'] {
  if (value === undefined) return undefined;
  if (/^[1-5]\d\d$/.test(value)) return Number(value);
  if (value === '2xx' || value === '4xx' || value === '5xx') return value;
  throw new UsageError(`--status takes an HTTP status (401) or a class (2xx, 4xx, 5xx), got "${value}"`);
}

function messageOf(error: unknown): string {
  return String((error as Error)?.message ?? error);
}
