// A worker process: run as many as you like, on as many machines. Each runs the handlers for
// the deliveries the receiver enqueued. The article's row, the delivery's done row and the
// job's completion commit in one transaction: a killed worker leaves none of them.
import { startWorker } from 'webhook-cms-receiver';
import { pgBossSource } from 'webhook-cms-receiver/pg-boss';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { pool, queueName, startBoss } from './postgres.mjs';

const db = pool();
// One row per article, keyed by its id: a rename changes the slug, never the row.
await db.query(
  'CREATE TABLE IF NOT EXISTS site_articles (id text PRIMARY KEY, slug text NOT NULL, article jsonb NOT NULL)',
);
const boss = await startBoss();

const worker = startWorker(pgBossSource(boss, queueName), {
  handlers: {
    // Slow work is fine here: the service was answered long ago. Write through `tx`.
    'article.sync': async ({ article }, { tx }) => {
      if (article.status === 'published') {
        await tx.query(
          `INSERT INTO site_articles (id, slug, article) VALUES ($1, $2, $3)
           ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, article = excluded.article`,
          [article.id, article.slug, article],
        );
        console.log(`published ${article.slug}`);
      } else {
        await tx.query('DELETE FROM site_articles WHERE id = $1', [article.id]);
        console.log(`unpublished ${article.slug} (${article.status})`);
      }
    },
    'article.trash': async ({ article }, { tx }) => {
      await tx.query('DELETE FROM site_articles WHERE id = $1', [article.id]);
      console.log(`trashed ${article.slug}`);
    },
    test: () => console.log('test delivery received'),
  },
  // Transactional: the handler's writes through `tx` commit with the done row and the job.
  dedup: postgresDedupStore(db, { transactional: true, table: 'webhooks_processed' }),
  // A sync retried after a trash must not bring the article back.
  ordering: true,
  onStale: ({ articleId, timestamp, newerTimestamp }) =>
    console.log(`skipped a stale delivery for article ${articleId} (${timestamp} < ${newerTimestamp})`),
  concurrency: Number(process.env.CONCURRENCY ?? 4),
});
await worker.ready;
console.log(`worker ready on queue ${queueName}`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    // Finishes the jobs it is running, takes no new ones.
    await worker.close();
    await boss.stop({ graceful: false });
    await db.end();
    process.exit(0);
  });
}
