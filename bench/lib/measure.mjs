// Side-by-side timing for a noisy machine: every contender runs once per round, in a rotating
// order, and what counts is each round's ratio to the baseline measured in that same round.
// Medians of those ratios shrug off the rounds where the machine was busy elsewhere.
//
// Batches are timed in CPU time of this process (all its threads: GC helpers and the crypto
// thread pool included), not wall time: while another process holds the core, neither
// contender is charged for the wait.

function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let sink; // results go here so the optimiser cannot drop the work

async function runBatch(contender, iterations, input) {
  const { fn, async: isAsync } = contender;
  const start = cpuMs();
  if (isAsync) for (let i = 0; i < iterations; i++) sink = await fn(input, i);
  else for (let i = 0; i < iterations; i++) sink = fn(input, i);
  return cpuMs() - start;
}

/** Iterations that take about `batchMs`, found by doubling; doubles as the warm-up. */
async function calibrate(contender, input, batchMs) {
  let iterations = 1;
  for (;;) {
    const elapsed = await runBatch(contender, iterations, input(iterations));
    if (elapsed >= batchMs / 4 || iterations >= 1 << 22)
      return Math.max(1, Math.round((iterations * batchMs) / Math.max(elapsed, 0.001)));
    iterations *= 2;
  }
}

/**
 * Times every contender over `rounds` interleaved rounds.
 * @param {{ name: string, fn: Function, async?: boolean }[]} contenders the first is the baseline
 * @param {{ rounds: number, batchMs: number, input?: (iterations: number) => unknown, warmupMs?: number }} options
 *   `input` builds what a batch needs before the clock starts (fresh deliveries, say);
 *   `warmupMs` of CPU time per contender run untimed first, so every contender is optimised.
 * @returns {{ name: string, opsPerSecond: number, ratio: number, ratios: number[] }[]}
 *   median ops/s and the median of the per-round ratios to the baseline
 */
export async function compare(contenders, { rounds, batchMs, input = () => undefined, warmupMs = 300 }) {
  // Steady state is what is compared: V8 optimises hot functions on a background thread, and
  // that thread's CPU time is charged to whichever batch runs meanwhile. Without a warm-up the
  // first rows of a process measured the compiler (verify() at 1 KiB: 0.77–0.86 of the limit
  // as a process's first suite, 1.09–1.11 in the same process a minute later).
  for (const contender of contenders) {
    const start = cpuMs();
    for (let batch = 1; cpuMs() - start < warmupMs; batch = Math.min(batch * 2, 1 << 14))
      await runBatch(contender, batch, input(batch));
  }
  const counts = [];
  for (const contender of contenders) counts.push(await calibrate(contender, input, batchMs));
  const perRound = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (k + round) % contenders.length;
      const data = input(counts[index]);
      const elapsed = await runBatch(contenders[index], counts[index], data);
      perRound[index].push((counts[index] * 1000) / elapsed);
    }
  }
  return contenders.map((contender, index) => {
    const ratios = perRound[index].map((ops, round) => ops / perRound[0][round]);
    return { name: contender.name, opsPerSecond: median(perRound[index]), ratio: median(ratios), ratios };
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The p25–p75 range of `values`: how far rounds disagreed, for the noise note. */
export function quartiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => {
    const position = (sorted.length - 1) * q;
    const low = Math.floor(position);
    return sorted[low] + (sorted[Math.ceil(position)] - sorted[low]) * (position - low);
  };
  return [at(0.25), at(0.75)];
}

export function consume() {
  return sink;
}
