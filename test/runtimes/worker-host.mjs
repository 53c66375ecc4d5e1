// Runs one bundled Worker in workerd through miniflare and prints its URL, until stdin closes.
// miniflare 4 needs Node 22+, so run.mjs starts this file with the Node 22 binary of the matrix.
// What the Worker logs (console.log) goes to this process's stdout, where hostWorker reads it.
import { dirname } from 'node:path';
import { Miniflare } from 'miniflare';

const [scriptPath, compatibilityDate, bindingsJson = '{}', flags = '', durableObjectsJson = '{}', queuesJson = '{}'] =
  process.argv.slice(2);
const { queueProducers, queueConsumers, r2Buckets, tap } = JSON.parse(queuesJson);
const worker = {
  name: 'worker',
  modules: true,
  scriptPath,
  modulesRoot: dirname(scriptPath),
  compatibilityDate,
  // Empty unless the matrix asks: the point is a Worker WITHOUT nodejs_compat.
  compatibilityFlags: flags ? flags.split(',') : [],
  bindings: JSON.parse(bindingsJson),
  durableObjects: JSON.parse(durableObjectsJson),
  queueProducers,
  queueConsumers,
  r2Buckets,
};
const mf = new Miniflare({
  // The tap, when asked for: a second Worker under /__tap/ that sends raw messages to queues
  // (POST /__tap/send/<binding>) and keeps what the queues it consumes received (GET /__tap/received).
  workers: tap ? [worker, tapWorker(tap, compatibilityDate)] : [worker],
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
console.log(JSON.stringify({ url: url.href, workerd: await workerdVersion() }));
process.stdin.resume();
process.stdin.on('end', () => mf.dispose().then(() => process.exit(0)));

async function workerdVersion() {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.resolve('miniflare'));
  return require('workerd/package.json').version;
}

/** `tap`: `{ producers: { BINDING: queueName }, consumes: [queueName] }`. */
function tapWorker({ producers = {}, consumes = [] }, date) {
  const script = `
const received = [];
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === '/__tap/received') return Response.json(received);
    const binding = pathname.match(/^\\/__tap\\/send\\/(\\w+)$/)?.[1];
    if (request.method !== 'POST' || !binding || !env[binding]) return new Response('Not found', { status: 404 });
    await env[binding].send(await request.json(), { contentType: 'json' });
    return Response.json({ sent: true });
  },
  queue(batch) {
    for (const message of batch.messages) {
      received.push({ queue: batch.queue, body: message.body, attempts: message.attempts });
      message.ack();
    }
  },
};`;
  return {
    name: 'tap',
    modules: [{ type: 'ESModule', path: 'tap.mjs', contents: script }],
    compatibilityDate: date,
    routes: ['*/__tap/*'],
    queueProducers: producers,
    queueConsumers: Object.fromEntries(consumes.map((queue) => [queue, { maxBatchTimeout: 0.1 }])),
  };
}
