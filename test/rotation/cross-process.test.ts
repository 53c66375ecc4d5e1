import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { childLines } from '../helpers/child-lines.js';
import { freshTable, openDatabase, server as postgres } from '../postgres/postgres-clients.js';
import { freshPrefix, redisUrl } from '../redis/redis-clients.js';

const script = fileURLToPath(new URL('./rotation-process.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../dist/redis.js', import.meta.url));
const OLD = 'cross-process-old-token-01234';
const NEW = 'cross-process-new-token-56789';

afterAll(() => postgres.stop());

interface Child {
  child: ChildProcess;
  url: string;
  handled: string[];
  exited: Promise<void>;
}

async function startChild(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const handled: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.startsWith('handling ')) handled.push(line.slice(9));
  });
  const { waitFor, exited } = childLines(child, 'rotation process');
  const port = (await waitFor(/^listening \d+$/)).split(' ')[1];
  return { child, url: `http://127.0.0.1:${port}/webhook`, handled, exited };
}

async function post(url: string, token: string, payload: object, deliveryId: string) {
  const { headers, body } = signDelivery({ token, payload: payload as never, deliveryId });
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

const stores = [
  { name: 'one Redis', store: 'redis', url: redisUrl, prefix: freshPrefix },
  { name: 'one Postgres', store: 'postgres', url: postgres.url, prefix: () => freshTable('rot') },
];

describe.each(stores)('two processes on $name, rotating the token', ({ store, url, prefix }) => {
  it.skipIf(!url)(
    'process each kept delivery exactly once, and answer the retries as duplicates',
    async () => {
      if (!existsSync(built)) throw new Error('run `npx tsup` first: the child processes use the built package');
      const dir = mkdtempSync(join(tmpdir(), 'rotation-'));
      const tokenFile = join(dir, 'tokens');
      writeFileSync(tokenFile, `${OLD}\n`);
      const env = {
        QUIET: '1',
        STORE: store,
        URL: url!,
        PREFIX: prefix(),
        TOKEN_FILE: tokenFile,
        ROTATING_UNTIL: String(Date.now() + 3_600_000),
      };
      const children = await Promise.all([startChild(env), startChild(env)]);
      try {
        // The service regenerated the token: every delivery now presents NEW, which no process knows.
        const deliveries = Array.from({ length: 12 }, (_, i) => ({
          id: randomUUID(),
          payload: articleSyncPayload(),
          to: children[i % 2]!,
        }));
        for (const { id, payload, to } of deliveries) {
          expect(await post(to.url, NEW, payload, id)).toEqual({
            status: 503,
            retryAfter: '60',
            body: { error: 'Token rotation in progress' },
          });
        }
        expect(children.flatMap((c) => c.handled)).toEqual([]);
        // The user updates the secret; each process re-reads it on its own timer.
        writeFileSync(tokenFile, `${NEW}\n${OLD}\n`);
        const all = () => children.flatMap((c) => c.handled);
        await new Promise<void>((resolve) => {
          const check = () => (all().length >= deliveries.length ? resolve() : setTimeout(check, 20));
          check();
        });
        // The service's own retries, to both processes: every one a duplicate.
        // A process that re-read its source less than a second ago still answers 503 (the re-read
        // is rate-limited): the service retries those, as here.
        for (const { id, payload } of deliveries) {
          for (const to of children) {
            let answer = await post(to.url, NEW, payload, id);
            while (answer.status === 503) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              answer = await post(to.url, NEW, payload, id);
            }
            expect(answer).toEqual({ status: 200, body: { ok: true, duplicate: true }, retryAfter: null });
          }
        }
        expect(all().sort()).toEqual(deliveries.map((d) => d.id).sort());
      } finally {
        for (const { child } of children) child.kill('SIGTERM');
        await Promise.all(children.map((c) => c.exited));
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('postgresKeptTableSql', () => {
  it('creates the kept table a store with createTable: false then uses', async () => {
    const { postgresKeptTableSql } = await import('webhook-cms-receiver/postgres');
    expect(postgresKeptTableSql()).toMatch(/^CREATE TABLE IF NOT EXISTS webhook_deliveries_kept \(/);
    expect(postgresKeptTableSql({ table: 'hooks.deliveries' })).toContain('hooks.deliveries_kept');
  });

  it.skipIf(!postgres.url)('a store with createTable: false keeps into the table a migration made', async () => {
    const { postgresDedupStore, postgresDedupTableSql, postgresKeptTableSql } = await import(
      'webhook-cms-receiver/postgres'
    );
    const db = await openDatabase('pg Pool');
    try {
      const table = freshTable('migrated');
      await db.sql(postgresDedupTableSql({ table }));
      await db.sql(postgresKeptTableSql({ table }));
      const kept = postgresDedupStore(db.client, { table, createTable: false }).kept!;
      const request = { id: 'k1', tokenSha256: 'ab', headers: {}, body: '', receivedAt: Date.now() };
      expect(await kept.keep(request, { maxCount: 1, maxBytes: 1000, until: Date.now() + 60_000 })).toBe(true);
      expect(
        await kept.keep({ ...request, id: 'k2' }, { maxCount: 1, maxBytes: 1000, until: Date.now() + 60_000 }),
      ).toBe(false);
      expect(await kept.list()).toEqual([{ id: 'k1', tokenSha256: 'ab' }]);
      expect(await kept.take('k1')).toEqual(request);
      expect(await kept.take('k1')).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
