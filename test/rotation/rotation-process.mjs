// One receiver process for the cross-process rotation test: an HTTP server on 127.0.0.1 with
// the built package (imported by name, as a user would), a token source that reads
// TOKEN_FILE (one token a line, first is current), a rotation window until ROTATING_UNTIL,
// and the Redis or Postgres store. Prints `listening <port>` when ready and
// `handling <delivery id>` each time a handler runs.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';

const { STORE, URL: STORE_URL, PREFIX, TOKEN_FILE, ROTATING_UNTIL } = process.env;
const dedup = await openStore();
const receiver = createReceiver({
  token: async () => (await readFile(TOKEN_FILE, 'utf8')).split('\n').filter(Boolean),
  rotatingUntil: Number(ROTATING_UNTIL),
  tokenCacheMs: 200,
  dedup,
  logger: process.env.QUIET ? false : console,
});
const handlers = {
  'article.sync': (event) => {
    process.stdout.write(`handling ${event.deliveryId}\n`);
  },
};
const server = createServer(webhookHandler(receiver, handlers));
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));

async function openStore() {
  if (STORE === 'redis') {
    const { createClient } = await import('redis');
    const { redisDedupStore } = await import('webhook-cms-receiver/redis');
    return redisDedupStore(await createClient({ url: STORE_URL }).connect(), { keyPrefix: PREFIX });
  }
  const { default: pg } = await import('pg');
  const { postgresDedupStore } = await import('webhook-cms-receiver/postgres');
  const pool = new pg.Pool({ connectionString: STORE_URL });
  pool.on('error', () => {}); // the server stops before this process at the end of the test
  return postgresDedupStore(pool, { table: PREFIX });
}
