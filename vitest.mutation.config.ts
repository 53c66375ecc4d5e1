import { defineConfig } from 'vitest/config';
import type { TestSequencer, TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * Beside tests first, the suites that sleep (leases, deadlines, the store contract), the property
 * tests and the bounded sanitizer's megabyte inputs last.
 */
const rank = (file: string) =>
  file.includes('/src/')
    ? 0
    : /lease|deadline|memory-contract|\/property\/|\.property\.test|sanitize-bounded/.test(file)
      ? 2
      : 1;

/**
 * Stryker stops a mutant's run at its first failing test, so running the quick, focused tests
 * first makes a killed mutant cheap; only survivors pay for the slow suites.
 */
class FastFirst implements TestSequencer {
  shard(files: TestSpecification[]) {
    return files;
  }
  sort(files: TestSpecification[]) {
    return [...files].sort((a, b) => rank(a.moduleId) - rank(b.moduleId) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * The fast suites the mutation run (`npm run test:mutation`, stryker.config.mjs) runs once per
 * mutant: the tests beside the mutated folders, test/receiver, test/property at a scaled
 * budget with a fixed seed, the memory store's contract and the telemetry outcomes. No
 * services are started.
 * (Built by hand, not with mergeConfig, which would append to the base config's lists.)
 */
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: [
      'src/{receiver,crypto,input,events,dedup}/**/*.test.ts',
      'test/receiver/**/*.test.ts',
      'test/property/**/*.test.ts',
      'test/stores/memory-contract.test.ts',
      // The ledger's part of admission: a refused head read on to be kept, or recorded as it is.
      'test/ledger/{receiver-ledger,ledger-modes}.test.ts',
      // Token sources, the rotation window and the requests kept during it, all in memory.
      'test/rotation/{token-source,kept-requests,kept-pipeline}.test.ts',
      // The core's instrumentation hooks, through the OpenTelemetry SDK in memory.
      'test/opentelemetry/{interface,outcomes}.test.ts',
      // Tenant mode's matcher, lookup cap and profile binding, in memory and over node:http:
      // only for the tokens scope, whose files they are about; their floods cost minutes a mutant.
      ...(process.env.MUTATION_REPORT?.startsWith('tokens') ? ['test/tenants/{tenant-mode,lookup-flood}.test.ts'] : []),
      // Only for the queue and publish scopes (scripts/mutation-scopes.mjs), so the others do not pay for them.
      ...(process.env.MUTATION_REPORT?.startsWith('queue')
        ? [
            'src/queue/**/*.test.ts',
            // The worker through an in-memory job source; the BullMQ and pg-boss suites need
            // Redis and PostgreSQL, which this run does not start.
            'test/queue/*.mutation-pins.test.ts',
          ]
        : []),
      ...(process.env.MUTATION_REPORT?.startsWith('publish')
        ? [
            'src/publish/**/*.test.ts',
            // In process and without services: the suites that spawn a process or a browser
            // reach no mutant (coverage is per test, in this process) and only cost time.
            'test/publish/{article-date,classify-change,lastmod,lifecycle,publish.property,sanitize-bounded,sanitize-html,slug-history,visibility}.test.ts',
            // Rows as sites store them and the slug history's edges, pinned for this run.
            'test/publish/*.mutation-pins.test.ts',
          ]
        : []),
    ],
    exclude: base.test?.exclude,
    testTimeout: base.test?.testTimeout,
    sequence: { sequencer: FastFirst },
    env: {
      // 1/100 of the property budget by default; PROPERTY_BUDGET=1 runs all of it.
      PROPERTY_BUDGET: process.env.PROPERTY_BUDGET ?? '0.01',
      FC_SEED: process.env.FC_SEED ?? '20',
    },
  },
});
