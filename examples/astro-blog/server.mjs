// `npm start` builds, then runs this: it checks the token, opens the database, and only then
// starts the Astro server, so the first request does not wait for the database.
import { openSite } from './src/lib/site-store.mjs';

const token = process.env.WEBHOOK_TOKEN;
if (!token) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token shown in Profile Settings → CMS Integration and start with:\n  WEBHOOK_TOKEN=<your token> npm start',
  );
  process.exit(1);
}
process.env.HOST ??= '127.0.0.1';
process.env.PORT ??= '4321';
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = process.env.DATA_DIR ?? './data';
// Shared with src/lib/site.ts through globalThis: the server runs in this same process.
const site = openSite({ databaseUrl, dataDir });
globalThis[Symbol.for('webhook-cms-receiver.astro-blog.site')] = site;
await site;
console.log(
  `Webhook endpoint: http://${process.env.HOST}:${process.env.PORT}/webhook (articles in ${databaseUrl ? 'Postgres (DATABASE_URL)' : `PGlite in ${dataDir}`})`,
);
// The standalone server of @astrojs/node listens on HOST and PORT as soon as it is imported.
await import('./dist/server/entry.mjs');
