// @ts-check
// One report name for the run (scripts/mutation-run.mjs sets it per scope), so that the
// security core and the other folders keep their reports side by side.
const report = process.env.MUTATION_REPORT ?? 'mutation';

/**
 * Mutation testing of the security core and the folders beside it. `npm run test:mutation`
 * is incremental: only mutants whose code or covering tests changed since the last run are run
 * again. `npm run test:mutation:core` (and CI, through scripts/mutation-run.mjs) runs a scope
 * from scratch (MUTATION_FRESH=1), re-runs its timeouts once and checks the score; see
 * CONTRIBUTING.md, "Mutation testing", and MUTATION.md for the last score.
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
  incremental: !process.env.MUTATION_FRESH,
  incrementalFile: 'reports/stryker-incremental.json',
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${report}.html` },
  jsonReporter: { fileName: `reports/mutation/${report}.json` },
  thresholds: { high: 90, low: 85, break: null },
};
