import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type DedupStore } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { redisDedupStore } from 'webhook-cms-receiver/redis';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { freshTable, server as postgres } from '../postgres/postgres-clients.js';
import { connect, freshPrefix, redisUrl } from '../redis/redis-clients.js';

// Issue 46, "kept requests never wait": an instance redeployed with the new token found the
// requests the old one kept, and left them until another delivery arrived (150 s on a shared
// Redis; dropped if none came before the window closed). The old instance keeps two
// deliveries; a new process on the same store, sent nothing, processes both.

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./kept-restart-child.mjs', import.meta.url));
const OLD = 'kept-restart-old-token-0123456789';
const NEW = 'kept-restart-new-token-9876543210';
const dir = mkdtempSync(join(tmpdir(), 'wcr-kept-restart-'));
let bundle = '';

beforeAll(async () => {
  bundle = join(dir, 'receiver.mjs');
  await build({
    stdin: {
      contents: [
        "export * from './src/index.ts';",
        "export * from './src/redis/index.ts';",
        "export * from './src/postgres/index.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    alias: { 'webhook-cms-receiver': './src/index.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    logLevel: 'silent',
  });
}, 60_000);

afterAll(async () => {
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Store {
  name: string;
  skip: boolean;
  /** The store the old instance kept requests in, the child's STORE and STORE_URL, and how to let go of it. */
  open(): Promise<{ dedup: DedupStore; env: Record<string, string>; close(): Promise<void> }>;
}

const stores: Store[] = [
  {
    name: 'Redis',
    skip: !redisUrl,
    async open() {
      const client = await connect('redis');
      const prefix = freshPrefix();
      const dedup = redisDedupStore(client.client, { keyPrefix: prefix });
      return { dedup, env: { STORE: 'redis', STORE_URL: redisUrl!, PREFIX: prefix }, close: () => client.close() };
    },
  },
  {
    name: 'Postgres',
    skip: !postgres.url,
    async open() {
      const pool = new pg.Pool({ connectionString: postgres.url });
      const table = freshTable('kept_restart');
      const dedup = postgresDedupStore(pool, { table });
      return { dedup, env: { STORE: 'postgres', STORE_URL: postgres.url!, PREFIX: table }, close: () => pool.end() };
    },
  },
  {
    name: 'PGlite',
    skip: false,
    async open() {
      // On disk: the old process's database, opened by the new one once the old has closed it.
      const data = join(dir, `pglite-${randomUUID()}`);
      const db = await PGlite.create(data);
      const dedup = postgresDedupStore(db, { table: 'kept_restart' });
      return { dedup, env: { STORE: 'pglite', STORE_URL: data, PREFIX: 'kept_restart' }, close: () => db.close() };
    },
  },
];

describe.each(stores)('a receiver restarted on $name', ({ skip, open }) => {
  it.skipIf(skip)(
    'processes the deliveries the old instance kept, with no further request',
    async () => {
      const rotatingUntil = Date.now() + 3_600_000;
      const store = await open();
      // The old instance: it knows only OLD, and the service already signs with NEW.
      const old = createReceiver({ token: [OLD], rotatingUntil, dedup: store.dedup, logger: false });
      const ids = [randomUUID(), randomUUID()];
      for (const deliveryId of ids) {
        const answer = await old.handle(signDelivery({ token: NEW, payload: articleSyncPayload(), deliveryId }), {});
        expect(answer.status).toBe(503);
      }
      expect(await store.dedup.kept!.list()).toHaveLength(2);
      await store.close();
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, ...store.env, BUNDLE: bundle, ROTATING_UNTIL: String(rotatingUntil), OLD, NEW },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const handled: string[] = [];
      child.stdout!.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line.startsWith('handling ')) handled.push(line.slice(9));
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        const deadline = Date.now() + 40_000;
        while (handled.length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(handled.sort()).toEqual([...ids].sort());
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    },
    90_000,
  );
});
