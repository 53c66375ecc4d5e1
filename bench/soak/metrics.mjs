// Figures from the samples: memory slope per process (least squares over the last half of the
// run, in MiB per hour), answer-time percentiles per minute, event-loop delay per process.

const MIB = 1024 * 1024;

export function percentile(sorted, p) {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function slope(points) {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den ? num / den : 0;
}

/** Process ages (minutes) at which the report shows each judged process's heap: its warm-up. */
export const AGES_MIN = [1, 5, 10, 15, 20, 30, 45, 60, 90, 120];

/**
 * One row per process that lived through at least 80 % of the last half (a process restarted
 * by chaos in that half has no row): heap and RSS slopes in MiB/h, first and last values.
 * Only a process at least `warmUpMs` old at the half is `judged`: a younger one is still
 * optimising its code and filling its bounded caches, growth no leak makes. Its row is kept,
 * with its age, so the report shows it. `heapByAge` is a judged process's heap (MiB) at the
 * ages of AGES_MIN it reached.
 */
export function memorySlopes(samples, { startedAt, endedAt, warmUpMs = 0 }) {
  const half = startedAt + (endedAt - startedAt) / 2;
  const byProcess = new Map();
  for (const s of samples) {
    const key = `${s.name} ${s.pid}`;
    if (!byProcess.has(key)) byProcess.set(key, []);
    byProcess.get(key).push(s);
  }
  const rows = [];
  for (const list of byProcess.values()) {
    const late = list.filter((s) => s.t >= half && s.t <= endedAt);
    if (late.length < 3 || late.at(-1).t - late[0].t < 0.8 * (endedAt - half)) continue;
    const hours = (s) => (s.t - late[0].t) / 3_600_000;
    // Its first sample comes one interval after it started: near enough for minutes of age.
    const bornAt = list[0].t;
    const judged = half - bornAt >= warmUpMs;
    rows.push({
      name: late[0].name,
      pid: late[0].pid,
      samples: late.length,
      ageAtHalfMin: (half - bornAt) / 60_000,
      judged,
      heapByAge: judged ? heapByAge(list, bornAt) : [],
      heapSlope: slope(late.map((s) => [hours(s), s.heapUsed / MIB])),
      rssSlope: slope(late.map((s) => [hours(s), s.rss / MIB])),
      // Buffers and other memory V8 holds outside its heap: a kept body would grow this.
      externalSlope: slope(late.map((s) => [hours(s), (s.external ?? 0) / MIB])),
      heapFirst: late[0].heapUsed / MIB,
      heapLast: late.at(-1).heapUsed / MIB,
      rssLast: late.at(-1).rss / MIB,
      eldP99: percentile(
        list.map((s) => s.eld.p99).sort((a, b) => a - b),
        50,
      ),
      eldMax: Math.max(...list.map((s) => s.eld.max)),
    });
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

/** `[ageMin, heapMiB]` at each age of AGES_MIN the process reached, from the first sample at or after it. */
function heapByAge(list, bornAt) {
  const points = [];
  for (const age of AGES_MIN) {
    const sample = list.find((s) => s.t - bornAt >= age * 60_000);
    if (sample) points.push([age, sample.heapUsed / MIB]);
  }
  return points;
}

/** p50 / p99 answer time of legit requests per minute of the run. */
export function latencyPerMinute(latency) {
  const minutes = new Map();
  for (const { minute, ms } of latency) {
    if (!minutes.has(minute)) minutes.set(minute, []);
    minutes.get(minute).push(ms);
  }
  return [...minutes.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minute, list]) => {
      list.sort((a, b) => a - b);
      return { minute, count: list.length, p50: percentile(list, 50), p99: percentile(list, 99) };
    });
}
