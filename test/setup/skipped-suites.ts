import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * The mark of a suite skipped because this machine lacks something it needs (a Redis, Postgres,
 * Chromium, workerd, Bun…): its name says `skipped: <how to run it>`. Suites skipped by design
 * (the streamed-HMAC tests on a provider without streams, the "before reading the body" rows of
 * an adapter whose platform hands over the whole body) carry no mark and never count.
 */
const MARK = 'skipped:';

/**
 * Lists the suites skipped for a missing service after the run, with how to run them. Under
 * `CI=true` a single one fails the run: CI promises that nothing is skipped.
 */
export default class SkippedSuites implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, number>();
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests('skipped')) {
        const marked = test.fullName.split(' > ').find((name) => name.includes(MARK));
        if (!marked) continue;
        const key = `${relative(process.cwd(), testModule.moduleId)}: ${marked}`;
        skipped.set(key, (skipped.get(key) ?? 0) + 1);
      }
    }
    if (skipped.size === 0) return;
    const lines = [...skipped].map(([suite, count]) => `  ${suite} (${count} test${count === 1 ? '' : 's'})`);
    const ci = process.env.CI === 'true';
    const head = ci
      ? `CI=true and ${skipped.size} suite(s) were skipped for a missing service; CI runs everything, so this fails the run:`
      : `${skipped.size} suite(s) skipped for a missing service; each name says how to run it:`;
    console.log(`\n${head}\n${lines.join('\n')}\n`);
    if (ci) process.exitCode = 1;
  }
}
