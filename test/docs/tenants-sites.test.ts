import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Receiver, SyncArticle, WebhookHandlers } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { allBlocks } from '../../scripts/doc-blocks.mjs';
import { type StartedPostgres, startPostgres } from '../setup/postgres.js';

// docs/tenants.md's `CREATE TABLE sites` and the resolver that reads it, both run as written
// against a real Postgres: a site found by its token's hash, its profile checked.
const root = fileURLToPath(new URL('../../', import.meta.url));
const blocks = allBlocks(root).filter((block) => block.doc === 'docs/tenants.md');
const createSites = blocks.find((block) => block.lang === 'sql' && /CREATE TABLE sites/.test(block.code));
const resolver = blocks.find((block) => block.lang === 'ts' && block.code.includes('FROM sites WHERE'));
const scratch = join(root, '.scratch', `tenants-sites-${process.pid}`);
const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

let postgres: StartedPostgres | undefined;
let pool: pg.Pool | undefined;
let docs: { receiver: Receiver; route: unknown } | undefined;
const saved: string[] = [];
const blockPools: pg.Pool[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  if (!postgres.url) return;
  pool = new pg.Pool({ connectionString: postgres.url });
  await pool.query('DROP TABLE IF EXISTS sites');
  await pool.query(createSites!.code);
  const site = (id: string, token: string, previous: string | null) =>
    pool!.query(
      'INSERT INTO sites (id, profile_id, domain, token, token_sha256, previous_token, previous_token_sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [id, `prof-${id}`, `${id}.example.com`, token, sha256(token), previous, previous && sha256(previous)],
    );
  await site('a', 'site-a-token-current-0001', 'site-a-token-previous-0001');
  await site('b', 'site-b-token-current-0002', null);
  // The block as a reader pastes it, with the database it reads and the prelude's savePost.
  process.env.DATABASE_URL = postgres.url;
  (globalThis as { savePost?: (article: SyncArticle) => Promise<void> }).savePost = async (article) =>
    void saved.push(article.slug);
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, 'tenants-resolver.mjs');
  writeFileSync(file, (await transform(resolver!.code, { loader: 'ts', format: 'esm' })).code);
  // The block's own pool, ended after the test (it is not exported): recorded as it is made.
  const Pool = pg.Pool;
  pg.Pool = class extends Pool {
    constructor(config?: pg.PoolConfig) {
      super(config);
      blockPools.push(this);
    }
  };
  try {
    docs = await import(pathToFileURL(file).href);
  } finally {
    pg.Pool = Pool;
  }
});
afterAll(async () => {
  await pool?.query('DROP TABLE IF EXISTS sites');
  await pool?.end();
  for (const made of blockPools) await made.end();
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const handlers: WebhookHandlers = {
  'article.sync': (event) => void saved.push(`${event.tenant!.id}/${event.article.slug}`),
};
const sync = (token: string, site: string, slug: string) =>
  docs!.receiver.handle(
    signDelivery({
      token,
      payload: articleSyncPayload({
        article: { slug },
        profile: { id: `prof-${site}`, domain: `${site}.example.com` },
      }),
    }),
    handlers,
  );

describe('docs/tenants.md: the sites table and its resolver, as written', () => {
  it('has both blocks', () => {
    expect(createSites).toBeDefined();
    expect(resolver).toBeDefined();
  });

  it('finds each site by its token, current or previous, and refuses another site’s profile', async (context) => {
    if (!postgres?.url) return context.skip(postgres?.reason);
    expect((await sync('site-a-token-current-0001', 'a', 'first')).status).toBe(200);
    expect((await sync('site-a-token-previous-0001', 'a', 'second')).status).toBe(200);
    expect((await sync('site-b-token-current-0002', 'b', 'third')).status).toBe(200);
    expect(await sync('site-b-token-current-0002', 'a', 'forged')).toMatchObject({
      status: 403,
      body: { error: 'Profile mismatch' },
    });
    expect((await sync('site-c-token-unknown-0003', 'a', 'nobody')).status).toBe(401);
    expect(saved).toEqual(['a/first', 'a/second', 'b/third']);
  });
});
