// A receiver started after another instance kept requests (issue 46, "kept requests never
// wait"): the bundled sources (BUNDLE), the new token first and the old one, the window still
// armed, the Redis, Postgres or PGlite store of the instance that kept them, and the
// `handlers` option. It serves no request: it prints `started`, then `handling <delivery id>`
// each time a handler runs, until the test stops it.
const { BUNDLE, STORE, STORE_URL, PREFIX, ROTATING_UNTIL, OLD, NEW } = process.env;
const wcr = await import(BUNDLE);

const dedup = await openStore();
wcr.createReceiver({
  token: [NEW, OLD],
  rotatingUntil: Number(ROTATING_UNTIL),
  tokenCacheMs: 200,
  dedup,
  logger: false,
  handlers: {
    'article.sync': (event) => void process.stdout.write(`handling ${event.deliveryId}\n`),
  },
});
process.stdout.write('started\n');
// Nothing else holds the process open (the receiver's timer is unref'd, as it must be).
setInterval(() => {}, 1000);

async function openStore() {
  if (STORE === 'redis') {
    const { createClient } = await import('redis');
    return wcr.redisDedupStore(await createClient({ url: STORE_URL }).connect(), { keyPrefix: PREFIX });
  }
  if (STORE === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    return wcr.postgresDedupStore(await PGlite.create(STORE_URL), { table: PREFIX });
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: STORE_URL });
  pool.on('error', () => {});
  return wcr.postgresDedupStore(pool, { table: PREFIX });
}
