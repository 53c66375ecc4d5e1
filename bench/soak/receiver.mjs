// One receiving process of the soak (forked by the driver with IPC): the /node adapter on a
// plain node:http server, the package built in dist/ imported by name as a user would. Its
// credentials come from the token file, its clock is `Date.now()` plus an offset the driver
// steps over IPC, and in queue mode it enqueues instead of running handlers.

import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { tenantResolver, tokenSource } from './credentials.mjs';
import { ipcLogger, startProbe } from './probe.mjs';
import { openQueue } from './queues.mjs';
import { openStore } from './stores.mjs';

const config = JSON.parse(process.env.SOAK_CONFIG);
const name = process.env.SOAK_NAME;
let offsetMs = Number(process.env.SOAK_CLOCK_OFFSET_MS || 0);
process.on('message', (message) => {
  if (message?.type === 'clock') offsetMs = message.offsetMs;
});

const store = await openStore(config, name);
const queue = config.queue === 'none' ? undefined : await openQueue(config);
const credentials = config.tenants
  ? { tenants: tenantResolver(config.credentialsFile) }
  : { token: tokenSource(config.credentialsFile) };
const receiver = createReceiver({
  ...credentials,
  tokenCacheMs: config.tokenCacheMs,
  maxBodyBytes: config.maxBodyBytes,
  dedup: store.dedup,
  ...(queue ? { queue: queue.queue } : {}),
  now: () => Date.now() + offsetMs,
  logger: ipcLogger(name),
});
const record = (event, context) => store.record(event.deliveryId, context);
const handle = webhookHandler(receiver, { 'article.sync': record, 'article.trash': record, test: record });
const server = createServer(handle);
server.keepAliveTimeout = 30_000;
await new Promise((resolve) => server.listen(Number(process.env.SOAK_PORT), '127.0.0.1', resolve));
startProbe(name, { intervalMs: config.sampleMs });
process.send({ type: 'ready', name });

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  Promise.all([queue?.close(), store.close()]).then(() => process.exit(0));
});
