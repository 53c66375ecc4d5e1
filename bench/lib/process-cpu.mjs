// CPU time of process trees, from Linux's /proc: what a store's server (Redis, a Postgres
// postmaster and its backends) spends per delivery, beside the server and the load generator.
// On a 2-core machine that all of them share, their sum bounds the throughput; elsewhere
// (no /proc) every reading is undefined and the bench leaves the column out.

import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on every Linux this runs on (getconf CLK_TCK)

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields count from its last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds of CPU the trees rooted at `roots` used so far: each root, its live
 * descendants, and the children it already reaped. Undefined without /proc.
 * @param {number[]} roots
 */
export function treeCpuMs(roots) {
  if (roots.length === 0) return 0;
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const children = new Map();
  const stats = new Map();
  for (const name of pids) {
    const s = stat(name);
    if (!s) continue;
    stats.set(Number(name), s);
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(Number(name));
  }
  let ticks = 0;
  const visit = (pid, root) => {
    const s = stats.get(pid);
    if (!s) return;
    ticks += s.own + (root ? s.reaped : 0);
    for (const child of children.get(pid) ?? []) visit(child, false);
  };
  for (const root of roots) visit(root, true);
  return ticks * TICK_MS;
}
