// The soak's command line. Every option has a default that runs a short, meaningful soak.

import { parseArgs } from 'node:util';

export const STORES = ['memory', 'redis', 'postgres', 'postgres-tx'];
export const QUEUES = ['none', 'bullmq', 'pg-boss'];

const USAGE = `npm run soak -- [options]
  --minutes N        length of each configuration's traffic (default 2)
  --rate N           requests per second, hostile ones included (default 20)
  --store S          ${STORES.join(' | ')} (default memory)
  --queue Q          ${QUEUES.join(' | ')} (default none)
  --configs LIST     several configurations one after another, e.g. memory/none,redis/bullmq
  --tenants N        tenant mode with N tenants (default 0: one token list)
  --retry-scale X    the service's retries after 2, 5, 10 s, times X (default 0.5)
  --slope-bound X    MiB/h of heap growth allowed (default 1 for runs of 30 min or more, else 256)
  --no-chaos         traffic only
  --seed N           the mix and the chaos schedule (default: the time)
  --report-dir DIR   where the report goes (default bench/soak/reports)
  --no-report        no report file (the summary is printed either way)`;

export function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '2' },
      rate: { type: 'string', default: '20' },
      store: { type: 'string', default: 'memory' },
      queue: { type: 'string', default: 'none' },
      configs: { type: 'string' },
      tenants: { type: 'string', default: '0' },
      'retry-scale': { type: 'string', default: '0.5' },
      'slope-bound': { type: 'string' },
      'no-chaos': { type: 'boolean', default: false },
      seed: { type: 'string' },
      'report-dir': { type: 'string' },
      'no-report': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name, min) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}\n${USAGE}`);
    return value;
  };
  const configs = (values.configs ?? `${values.store}/${values.queue}`).split(',').map((pair) => {
    const [store, queue = 'none'] = pair.trim().split('/');
    if (!STORES.includes(store)) throw new Error(`unknown store ${store}: ${STORES.join(', ')}`);
    if (!QUEUES.includes(queue)) throw new Error(`unknown queue ${queue}: ${QUEUES.join(', ')}`);
    return { store, queue };
  });
  const minutes = number('minutes', 0.1);
  return {
    configs,
    minutes,
    rate: number('rate', 0.1),
    tenants: Math.floor(number('tenants', 0)),
    retryScale: number('retry-scale', 0.01),
    slopeBound: values['slope-bound'] === undefined ? (minutes >= 30 ? 1 : 256) : number('slope-bound', 0),
    chaos: !values['no-chaos'],
    seed: values.seed === undefined ? Date.now() % 2 ** 31 : Math.floor(number('seed', 0)),
    reportDir: values['no-report'] ? null : values['report-dir'],
  };
}
