import { createInspector } from 'webhook-cms-receiver/testing';
import { startPublisher } from './app.mjs';

const token = process.env.WEBHOOK_TOKEN;
if (!token) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token shown in Profile Settings → CMS Integration and start with:\n  WEBHOOK_TOKEN=<your token> npm start',
  );
  process.exit(1);
}

// WEBHOOK_INSPECTOR=1 records every delivery to .webhook-inspector/ for the inspector page.
const inspecting = process.env.WEBHOOK_INSPECTOR === '1';
const dataDir = process.env.DATA_DIR ?? './data';
const { url, publicUrl, close } = await startPublisher({
  token,
  inspect: inspecting ? createInspector({ token }) : undefined,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  publicUrl: process.env.PUBLIC_URL || undefined,
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir,
  siteTitle: process.env.SITE_TITLE || undefined,
});
const storage = process.env.DATABASE_URL ? 'Postgres (DATABASE_URL)' : `PGlite in ${dataDir}`;
console.log(`Webhook endpoint: ${url}/webhook (site at ${publicUrl}/, articles in ${storage})`);
if (inspecting) console.log(`Inspector on: run  npx webhook-cms-receiver inspect --target ${url}/webhook  here`);

// Close the database cleanly on Ctrl-C or a container stop: PGlite flushes its files.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => close().then(() => process.exit(0)));
