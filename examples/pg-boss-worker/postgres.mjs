// The PostgreSQL both processes use: pg-boss's jobs, the dedup rows and the site's articles all
// live in the database of DATABASE_URL.
import pg from 'pg';
import PgBoss from 'pg-boss';

export const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error(
    'Set DATABASE_URL to a PostgreSQL server, such as postgres://postgres:secret@127.0.0.1:5432/postgres.\n' +
      'pg-boss needs a real server (PGlite cannot run it); for one on Docker:\n' +
      '  docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=secret postgres:17',
  );
  process.exit(1);
}
export const queueName = process.env.QUEUE_NAME ?? 'webhooks';

/** A started pg-boss. Its 'error' listener keeps a database restart from ending the process. */
export async function startBoss() {
  const boss = new PgBoss(databaseUrl);
  boss.on('error', (error) => console.error('pg-boss:', error.message));
  await boss.start();
  return boss;
}

/** A pool for the dedup store and the site's table. */
export function pool() {
  const client = new pg.Pool({ connectionString: databaseUrl });
  client.on('error', (error) => console.error('postgres:', error.message));
  return client;
}
