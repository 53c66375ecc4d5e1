import { startMultiSite } from './app.mjs';

const dataDir = process.env.DATA_DIR ?? './data';
const { url, storage, close } = await startMultiSite({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir,
  // How long a found site is kept before its row is read again (default 60 s).
  tokenCacheMs: process.env.TENANT_CACHE_MS ? Number(process.env.TENANT_CACHE_MS) : undefined,
  // Armed while a site regenerates its token: see "Rotating a site's token" in the README.
  rotatingUntil: process.env.ROTATING_UNTIL || undefined,
  // The password of the delivery ledger page (user `admin`); unset, the page stays closed.
  adminPassword: process.env.ADMIN_PASSWORD || undefined,
});
console.log(`Webhook endpoint for every site: ${url}/webhook (sites in ${storage})`);
console.log('Add a site with: node admin.mjs add-site <id> --profile <profileId> --domain <domain>');
console.log(`Delivery ledger: ${url}/admin/deliveries (user admin, password ADMIN_PASSWORD)`);

// Close the database cleanly on Ctrl-C or a container stop: PGlite flushes its files.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => close().then(() => process.exit(0)));
