// The scopes of the mutation run: what each mutates and the score it must keep. Read by
// scripts/mutation-run.mjs (what to run) and scripts/mutation-summary.mjs (what to check).

/** The receiver's files that authenticate a delivery: the token, admission and verification. */
const RECEIVER_CORE = ['token', 'admit', 'admission', 'verify-delivery'].map((name) => `src/receiver/${name}.ts`);

export const SCOPES = {
  /** What an attacker's request meets first; CI runs it on every build and fails under `minimum`. */
  'security-core': {
    title: 'Security core',
    mutate: ['src/crypto/**/*.ts', 'src/input/**/*.ts', 'src/events/**/*.ts', ...RECEIVER_CORE, '!src/**/*.test.ts'],
    minimum: 90,
  },
  /** The rest of the receiver and the dedup stores: run by hand (about half an hour on 2 cores). */
  'dedup-receiver': {
    title: 'Dedup and the rest of the receiver',
    mutate: [
      'src/dedup/**/*.ts',
      'src/receiver/**/*.ts',
      ...RECEIVER_CORE.map((file) => `!${file}`),
      '!src/**/*.test.ts',
    ],
    minimum: 90,
  },
  /**
   * Queue mode's worker and retry, and /publish: added last, while they were being rewritten,
   * and not measured yet. Their suites join the run only for this scope (vitest.mutation.config.ts);
   * the ones that need Redis or PostgreSQL (most of test/queue) are not among them yet.
   */
  'queue-publish': {
    title: 'Queue mode and /publish',
    mutate: ['src/queue/**/*.ts', 'src/publish/**/*.ts', '!src/**/*.test.ts'],
    minimum: 85,
  },
};
