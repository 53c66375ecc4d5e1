import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { MATRIX_FILES } from './test/setup/matrix-files.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources; the pack-and-import test checks the built package.
    alias: [
      { find: /^webhook-cms-receiver$/, replacement: here('./src/index.ts') },
      { find: /^webhook-cms-receiver\/adapter-kit$/, replacement: here('./src/adapter-kit/index.ts') },
      { find: /^webhook-cms-receiver\/testing$/, replacement: here('./src/testing/index.ts') },
      { find: /^webhook-cms-receiver\/publish$/, replacement: here('./src/publish/index.ts') },
      { find: /^webhook-cms-receiver\/(bullmq|pg-boss)$/, replacement: here('./src/$1/index.ts') },
      {
        find: /^webhook-cms-receiver\/(redis|postgres|cloudflare|dynamodb|sqs)$/,
        replacement: here('./src/$1/index.ts'),
      },
      { find: /^webhook-cms-receiver\/opentelemetry$/, replacement: here('./src/opentelemetry/index.ts') },
      {
        find: /^webhook-cms-receiver\/(node|express|hono|fetch|fastify|koa|h3|lambda)$/,
        replacement: here('./adapters/$1/index.ts'),
      },
    ],
  },
  test: {
    globalSetup: ['test/setup/services.ts'],
    // A suite skipped for a missing service (its name says `skipped: <how to run it>`) is listed
    // after the run; under CI=true it fails the run.
    reporters: ['default', './test/setup/skipped-suites.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The slow matrix (every host version, starters copied out, engines under faults) is
    // `npm run test:matrix` (vitest.matrix.config.ts); `npm test` is the rest.
    exclude: ['**/node_modules/**', '**/.scratch/**', 'test/runtimes/**', 'examples/**', ...MATRIX_FILES],
    testTimeout: 20_000,
    // Vitest's default is one worker per core but one, which is a single worker on 2 cores: most
    // files wait on servers (HTTP, Redis, Postgres, child processes) more than they compute, so
    // two overlap well there (issue 35: npm test within 5 minutes on 2 cores).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Refusals and failures the tests provoke on purpose are logged by the receiver (contract v3):
    // keep them out of the run's output. WCR_TEST_LOGS=1 shows them.
    onConsoleLog(log) {
      if (!process.env.WCR_TEST_LOGS && log.startsWith('webhook-cms-receiver:')) return false;
    },
  },
});
