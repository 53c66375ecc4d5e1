// One queue-mode worker process of the soak (forked by the driver with IPC): `startWorker` on
// the engine of `--queue`, the same dedup store and effect as the receivers would use.

import { startWorker } from 'webhook-cms-receiver';
import { ipcLogger, startProbe } from './probe.mjs';
import { openSource } from './queues.mjs';
import { openStore } from './stores.mjs';

const config = JSON.parse(process.env.SOAK_CONFIG);
const name = process.env.SOAK_NAME;
const store = await openStore(config, name);
const { source, close } = await openSource(config);
const record = (event, context) => store.record(event.deliveryId, context);
const worker = startWorker(source, {
  handlers: { 'article.sync': record, 'article.trash': record, test: record },
  dedup: store.dedup,
  concurrency: 4,
  // Long enough to outlast a store restart: a dead letter here is a delivery the judge finds lost.
  retry: { attempts: 30, initialDelayMs: 200, maxDelayMs: 2_000 },
  logger: ipcLogger(name),
});
await worker.ready;
startProbe(name, { intervalMs: config.sampleMs });
process.send({ type: 'ready', name });

process.on('SIGTERM', () => {
  worker
    .close()
    .then(() => Promise.all([close(), store.close()]))
    .then(() => process.exit(0));
});
