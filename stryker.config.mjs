// @ts-check
/**
 * Mutation testing of the security core: `npm run test:mutation` (see CONTRIBUTING.md,
 * "Mutation testing", and MUTATION.md for the last score). Incremental: only mutants whose
 * code or covering tests changed since the last run are run again.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/receiver/**/*.ts',
    'src/crypto/**/*.ts',
    'src/input/**/*.ts',
    'src/events/**/*.ts',
    'src/dedup/**/*.ts',
    '!src/**/*.test.ts',
  ],
  ignorePatterns: ['examples', 'docs', 'bench', 'coverage', 'reports', '.scratch', 'test/runtimes'],
  tempDirName: '.stryker-tmp',
  // Static mutants (module-level code: lookup tables, decoders made at load) need every test
  // run again in a fresh module graph, a minute each; `--ignoreStatic false` includes them.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
};
