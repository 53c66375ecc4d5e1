// The soak's command line. Every option has a default that runs a short, meaningful soak.

import { parseArgs } from 'node:util';

export const STORES = ['memory', 'redis', 'postgres', 'postgres-tx', 'dynamodb'];
export const QUEUES = ['none', 'bullmq', 'pg-boss', 'sqs'];

const USAGE = `npm run soak -- [options]
  --minutes N        length of each configuration's traffic (default 2)
  --rate N           requests per second, hostile ones included (default 20)
  --store S          ${STORES.join(' | ')} (default memory)
  --queue Q          ${QUEUES.join(' | ')} (default none)
  --configs LIST     several configurations one after another, e.g. memory/none,redis/bullmq
  --tenants N        tenant mode with N tenants (default 0: one token list)
  --retry-scale X    the service's retries after 2, 5, 10 s, times X (default 0.5)
  --slope-bound X    MiB/h of heap growth allowed over the last half (default 1 for runs of 30
                     min or more; shorter runs are judged on growth instead, see --growth-bound)
  --growth-bound X   MiB of heap growth allowed over the last half of a run under 30 min (default 16)
  --no-chaos         traffic only
  --heap-snapshots M heap snapshots of the processes numbered 0 at these minutes of the run
                     (e.g. 20,58), into a directory printed at the start; compare two with
                     node bench/soak/heap-diff.mjs A B
  --seed N           the mix and the chaos schedule (default: the time)
  --sabotage KIND    lose | twice: one effect in fifty skipped or doubled, to see the judge fail
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
      'growth-bound': { type: 'string', default: '16' },
      'no-chaos': { type: 'boolean', default: false },
      'heap-snapshots': { type: 'string' },
      seed: { type: 'string' },
      sabotage: { type: 'string' },
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
  if (values.sabotage !== undefined && !['lose', 'twice'].includes(values.sabotage))
    throw new Error(`--sabotage must be lose or twice\n${USAGE}`);
  return {
    configs,
    minutes,
    rate: number('rate', 0.1),
    tenants: Math.floor(number('tenants', 0)),
    retryScale: number('retry-scale', 0.01),
    // Under 30 minutes a slope in MiB/h extrapolates seconds of warm-up and of chaos (a store
    // restart's reconnects) to an hour: such runs are judged on growth in MiB instead, which
    // only a gross leak crosses.
    slopeBound: values['slope-bound'] === undefined ? (minutes >= 30 ? 1 : null) : number('slope-bound', 0),
    growthBound: number('growth-bound', 0),
    chaos: !values['no-chaos'],
    heapSnapshots: (values['heap-snapshots'] ?? '')
      .split(',')
      .filter(Boolean)
      .map((m) => {
        const minute = Number(m);
        if (!(minute > 0 && minute < minutes)) throw new Error(`--heap-snapshots: ${m} is not a minute of the run`);
        return minute;
      }),
    sabotage: values.sabotage,
    seed: values.seed === undefined ? Date.now() % 2 ** 31 : Math.floor(number('seed', 0)),
    reportDir: values['no-report'] ? null : values['report-dir'],
  };
}
