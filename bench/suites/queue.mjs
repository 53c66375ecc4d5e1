// Queue mode on BullMQ with a real Redis (a fresh `redis-server` on a free loopback port, or
// REDIS_URL), in two parts: the answer latency (queue-latency.mjs) and worker throughput.
//
// Worker throughput: 1, 2 and 4 worker processes (queue-worker.mjs, concurrency 1 each, the
// Redis store as README's workers have it) drain `jobs` deliveries enqueued beforehand by a
// receiver in queue mode, with a no-op handler and with one that waits 5 ms (simulated I/O).
// The queue is paused while the workers start and the clock runs from its resume to the last
// job completed (polled every 5 ms).
//
// Both parts run in interleaved rounds (the order rotates), and report medians and the spread
// (min–max) of the per-round values.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createReceiver } from 'webhook-cms-receiver';
import { freshDeliveries, TOKEN } from '../lib/deliveries.mjs';
import { median } from '../lib/measure.mjs';
import { table } from '../lib/report.mjs';
import { startRedis } from '../lib/services.mjs';
import { connectionOf, latencyPart } from './queue-latency.mjs';

export { queueVerdicts } from './queue-latency.mjs';

const WORKER = new URL('./queue-worker.mjs', import.meta.url);
const SIZE = 1024;

/** Forks a worker process and resolves once it can take a `start` message. */
export async function forkWorker(redisUrl) {
  const child = fork(WORKER, [], { env: { ...process.env, REDIS_URL: redisUrl }, stdio: 'inherit' });
  const [message] = await once(child, 'message');
  if (message !== 'started') throw new Error(`queue-worker.mjs said ${message}`);
  const ask = async (command, answer) => {
    child.send(command);
    const [reply] = await once(child, 'message');
    if (reply !== answer) throw new Error(`queue-worker.mjs answered ${reply}, not ${answer}`);
  };
  return { child, ask };
}

/** Jobs per second for `workers` processes draining `jobs` deliveries with `handler`. */
async function drainOnce({ redisUrl, Queue, bullmqQueue, processes, workers, handler, jobs, cell }) {
  const queueName = `bench-drain-${Date.now()}-${cell}`;
  const queue = new Queue(queueName, { connection: connectionOf(redisUrl) });
  try {
    await queue.pause();
    const receiver = createReceiver({ token: TOKEN, queue: bullmqQueue(queue) });
    const deliveries = freshDeliveries(SIZE, jobs);
    for (let i = 0; i < deliveries.length; i += 50) {
      const answers = await Promise.all(deliveries.slice(i, i + 50).map((delivery) => receiver.handle(delivery)));
      if (answers.some((answer) => answer.status !== 200 || !answer.body.queued))
        throw new Error(`enqueue answered ${JSON.stringify(answers.find((answer) => !answer.body.queued))}`);
    }
    const active = processes.slice(0, workers);
    await Promise.all(
      active.map((worker) => worker.ask({ start: { queueName, handler, keyPrefix: `bench:${queueName}:` } }, 'ready')),
    );
    const start = process.hrtime.bigint();
    await queue.resume();
    // Completed jobs are removed as they complete (bullmqQueue's default retention): drained is
    // when no job waits or runs any more.
    for (;;) {
      const left = await queue.getJobCounts('wait', 'paused', 'prioritized', 'delayed', 'active');
      if (Object.values(left).every((count) => count === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    await Promise.all(active.map((worker) => worker.ask({ stop: true }, 'stopped')));
    return jobs / seconds;
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  }
}

async function throughputPart({ redisUrl, Queue, bullmqQueue, rounds, jobs }) {
  const cells = [];
  for (const handler of ['noop', 'timer']) for (const workers of [1, 2, 4]) cells.push({ handler, workers });
  const processes = await Promise.all([1, 2, 3, 4].map(() => forkWorker(redisUrl)));
  try {
    // Warm-up: every process runs both handlers once, untimed.
    for (const handler of ['noop', 'timer'])
      await drainOnce({ redisUrl, Queue, bullmqQueue, processes, workers: 4, handler, jobs: 40, cell: 'warm' });
    const rates = cells.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < cells.length; k++) {
        const index = (k + round) % cells.length;
        const { handler, workers } = cells[index];
        rates[index].push(
          await drainOnce({
            redisUrl,
            Queue,
            bullmqQueue,
            processes,
            workers,
            handler,
            jobs,
            cell: `${round}-${index}`,
          }),
        );
      }
    }
    return cells.map(({ handler, workers }, index) => ({
      handler: handler === 'noop' ? 'no-op' : '5 ms timer',
      workers,
      perSecond: median(rates[index]),
      min: Math.min(...rates[index]),
      max: Math.max(...rates[index]),
    }));
  } finally {
    for (const { child } of processes) child.kill();
    await Promise.all(processes.map(({ child }) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  }
}

/**
 * @param {{ rounds: number, requests: number, drainRounds: number, jobs: number, warmup?: number }} options
 * @returns {Promise<{ skipped?: string, latency?: object[], throughput?: object[], jobs: number, rounds: number, requests: number, drainRounds: number }>}
 */
export async function queueSuite({ rounds, requests, drainRounds, jobs, warmup }) {
  const shape = { jobs, rounds, requests, drainRounds };
  const redis = await startRedis().catch((error) => ({ missing: error.message }));
  if (redis.missing) return { ...shape, skipped: redis.missing };
  try {
    const { Queue } = await import('bullmq');
    const { Redis } = await import('ioredis');
    const { bullmqQueue } = await import('webhook-cms-receiver/bullmq');
    const { redisDedupStore } = await import('webhook-cms-receiver/redis');
    const redisUrl = redis.url;
    const clients = { Queue, Redis, bullmqQueue, redisDedupStore };
    const latency = await latencyPart({ redisUrl, ...clients, rounds, requests, warmup });
    const throughput = await throughputPart({ redisUrl, Queue, bullmqQueue, rounds: drainRounds, jobs });
    return { ...shape, latency, throughput };
  } finally {
    await redis.stop();
  }
}

const ms = (value) => value.toFixed(2);
const range = ([low, high]) => `${ms(low)}–${ms(high)}`;
const rate = (value) => Math.round(value).toLocaleString('en-US');

/** The two tables of the suite, as markdown, or why it was not measured. */
export function queueReport(result) {
  if (result.skipped) return `Not measured: ${result.skipped}.`;
  const latency = table(
    ['receiver', 'p50 (ms)', 'rounds min–max', 'p99 (ms)', 'rounds min–max', 'p50 ÷ inline', 'p99 ÷ inline'],
    result.latency.map((r, i) => [
      r.name,
      ms(r.p50),
      range(r.p50Range),
      ms(r.p99),
      range(r.p99Range),
      i === 0 ? '1.00×' : `${r.p50Ratio.toFixed(2)}×`,
      i === 0 ? '1.00×' : `${r.p99Ratio.toFixed(2)}×`,
    ]),
  );
  const single = new Map(result.throughput.filter((r) => r.workers === 1).map((r) => [r.handler, r.perSecond]));
  const throughput = table(
    ['handler', 'workers', 'jobs/s (median)', 'rounds min–max', '÷ 1 worker'],
    result.throughput.map((r) => [
      r.handler,
      String(r.workers),
      rate(r.perSecond),
      `${rate(r.min)}–${rate(r.max)}`,
      `${(r.perSecond / single.get(r.handler)).toFixed(2)}×`,
    ]),
  );
  return (
    `Answer latency: 1 KiB deliveries over a kept-alive loopback connection, one at a time, to the node:http adapter (server and client in one process, Redis beside it on the same 2 cores); ${result.rounds} interleaved rounds of ${result.requests} requests per receiver, medians over rounds of each round's p50 and p99. No worker runs meanwhile.\n\n${latency}\n\n` +
    `Worker throughput: ${result.jobs} jobs enqueued, then drained by 1, 2 or 4 worker processes (concurrency 1 each, the Redis store); ${result.drainRounds} interleaved rounds.\n\n${throughput}`
  );
}
