import { createServer } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Ledger, type WebhookHandlers } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { postgresLedger } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, deliver } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { freshTable } from '../postgres/fresh-table.js';
import { HOW_TO_RUN_POSTGRES, startPostgres } from '../setup/postgres.js';
import { runCli } from './run-cli.js';

const OLD = 'ledger-cli-old-token-7f3a';
const NEW = 'ledger-cli-new-token-91c2';
const OTHER = 'ledger-cli-other-token-0d5e';
/** A slug that would set the terminal's title and colour if it reached it unescaped. */
const HOSTILE_SLUG = '\u001b]0;pwned\u0007\u001b[31mred\u202eevil';

const server = await startPostgres();
const table = freshTable('ledger');

/** A real receiver on a real node:http server, writing to the shared ledger table. */
async function endpoint(token: string, ledger: Ledger, handlers: WebhookHandlers = {}): Promise<RunningServer> {
  const receiver = createReceiver({ token, ledger, logger: false });
  return listen(createServer(webhookHandler(receiver, handlers)));
}

(server.url ? describe : describe.skip)(
  `npx webhook-cms-receiver ledger${server.url ? '' : ` (skipped: ${HOW_TO_RUN_POSTGRES})`}`,
  () => {
    let pool: pg.Pool;
    let oldLedger: Ledger;
    let old: RunningServer;
    const cli = (args: string[], env: Record<string, string> = {}) =>
      runCli(['ledger', ...args, '--database-url', server.url!, '--table', table], { env, secret: NEW });

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: server.url });
      pool.on('error', () => {});
      oldLedger = postgresLedger(pool, { table, keepRefused: true });
      old = await endpoint(OLD, oldLedger, { 'article.sync': async () => {} });
      const url = `${old.url}/webhook`;
      const send = (token: string, slug: string) =>
        deliver(url, { token, payload: articleSyncPayload({ article: { slug } }), maxAttempts: 1 });
      // Two delivered, then the token was regenerated: three signed with the new one refused,
      // and one refused request signed with a token nobody has.
      for (const slug of ['first', 'second']) expect((await send(OLD, slug)).summary.status).toBe(200);
      for (const slug of ['new-a', 'new-b', 'new-c']) expect((await send(NEW, slug)).summary.status).toBe(401);
      expect((await send(OTHER, HOSTILE_SLUG)).summary.status).toBe(401);
      await oldLedger.flush();
    }, 60_000);

    afterAll(async () => {
      await old?.close();
      await pool?.end();
      await server.stop();
    });

    it('list prints every row, refusals marked, a hostile slug escaped', async () => {
      const run = await cli(['list']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('RECEIVED (UTC)');
      expect(run.stdout.match(/unverified claim/g)).toHaveLength(4);
      for (const slug of ['first', 'second', 'new-a', 'new-b', 'new-c']) expect(run.stdout).toContain(slug);
      // No control character reaches the terminal: ESC, BEL and the bidi override are escaped.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is printed.
      expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(run.stdout).toContain('\\x1b]0;pwned\\x07\\x1b[31mred\\u202eevil');
    });

    it('list filters by status, and prints JSON with --json', async () => {
      const run = await cli(['list', '--status', '401', '--since', '1h', '--json']);
      expect(run.code).toBe(0);
      const { rows } = JSON.parse(run.stdout) as { rows: Array<{ verified: boolean; status: number; kept?: boolean }> };
      expect(rows).toHaveLength(4);
      expect(rows.every((row) => !row.verified && row.status === 401 && row.kept === true)).toBe(true);
    });

    it('summary counts the hour: 2 delivered, 4 refused', async () => {
      const json = await cli(['summary', '--since', '2h', '--json']);
      const { hours } = JSON.parse(json.stdout) as { hours: Array<{ delivered: number; refused: number }> };
      expect(hours.reduce((sum, hour) => sum + hour.delivered, 0)).toBe(2);
      expect(hours.reduce((sum, hour) => sum + hour.refused, 0)).toBe(4);
      const text = await cli(['summary']);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^total\s+2\s+4\s+0\s+0$/m);
    });

    it('recover re-delivers each refusal the new token signed exactly once; resend lists the rest', async () => {
      let handled = 0;
      const slugs: string[] = [];
      const freshLedger = postgresLedger(pool, { table });
      const fresh = await endpoint(NEW, freshLedger, {
        'article.sync': async ({ article }) => {
          handled++;
          slugs.push(article.slug);
        },
      });
      try {
        // An endpoint that still refuses (the old token): nothing is taken out of the ledger.
        const down = await listen(
          createServer((_req, res) => {
            res.statusCode = 401;
            res.end();
          }),
        );
        const failing = await cli(['recover', '--url', `${down.url}/webhook`], { WEBHOOK_TOKEN: NEW });
        await down.close();
        expect(failing.stdout).toContain('0 recovered, 3 failed, 1 still unverified');
        expect(failing.code).toBe(1);

        const url = `${fresh.url}/webhook`;
        const first = await cli(['recover', '--url', url], { WEBHOOK_TOKEN: NEW });
        expect(first.stderr).toBe('');
        expect(first.stdout).toContain('3 recovered, 0 failed, 1 still unverified');
        expect(first.code).toBe(0);
        expect(handled).toBe(3);
        expect(slugs.sort()).toEqual(['new-a', 'new-b', 'new-c']);

        // The recovered refusals' rows no longer say they wait for recover; the stranger's does.
        const listed = await cli(['list', '--status', '401']);
        expect(listed.stdout.match(/no longer kept/g)).toHaveLength(3);
        expect(listed.stdout.match(/kept for recover/g)).toHaveLength(1);

        const second = await cli(['recover', '--url', url, '--json'], { WEBHOOK_TOKEN: NEW });
        expect(JSON.parse(second.stdout)).toEqual({ recovered: 0, failed: 0, unverified: 1 });
        expect(handled).toBe(3);

        // The receiver's own ledger recorded the re-deliveries: only the stranger's refusal is left to re-send.
        await freshLedger.flush();
        const resend = await cli(['resend', '--json']);
        const { resend: items } = JSON.parse(resend.stdout) as { resend: Array<{ slug: string }> };
        expect(items.map((item) => item.slug)).toEqual([HOSTILE_SLUG]);
        const text = await cli(['resend']);
        expect(text.stdout).toContain('Re-send these from the dashboard');
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is printed.
        expect(text.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
      } finally {
        await fresh.close();
      }
    }, 60_000);

    it('recover refuses a token on the command line, and a ledger URL of no known store', async () => {
      const flag = await cli(['recover', '--url', 'http://127.0.0.1:1/webhook', '--token', NEW]);
      expect(flag.code).toBe(2);
      const scheme = await runCli(['ledger', 'list', '--database-url', 'mysql://x@127.0.0.1/db']);
      expect(scheme.code).toBe(2);
      expect(scheme.stderr).toContain('postgres://');
      const missing = await runCli(['ledger', 'summary'], { env: { DATABASE_URL: '', LEDGER_URL: '' } });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--database-url');
    });
  },
);
