import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What a spawned test process printed, line by line, and a way to wait for one line. */
export interface ChildLines {
  /** The first line (printed already or later) that matches; rejects if the child exits first. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Settles when the child exits. */
  exited: Promise<void>;
}

/** Reads `child`'s stdout (spawned with `stdio: [.., 'pipe', ..]`); `name` labels the rejection. */
export function childLines(child: ChildProcess, name: string): ChildLines {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return resolve(seen);
      waiters.push({ pattern, resolve });
      void exited.then(() => reject(new Error(`${name} exited before printing ${pattern}: ${lines.join(' | ')}`)));
    });
  return { waitFor, exited };
}
