// The scopes of the mutation run: what each mutates and the score it must keep. Read by
// scripts/mutation-run.mjs (what to run) and scripts/mutation-summary.mjs (what to check).

/**
 * The receiver's files that check a request's credentials: the token (fixed, or matched while
 * a token source loads), admission and verification, the token list and deadline checks, and
 * tenant mode's profile binding.
 */
const RECEIVER_CORE = [
  'tokens/token',
  'assembly/admit',
  'admission',
  'verify-delivery',
  'tokens/token-source',
  'tokens/fixed-tokens',
  'tokens/deferred-matcher',
  'tenants/tenant-binding',
].map((name) => `src/receiver/${name}.ts`);

/**
 * Where tokens come from when they change at run time: the token keeper (a source, its cache,
 * the rotation window) and tenant mode's keeper (the hash cache a removed token must leave,
 * the lookup cap). A scope of its own, run by hand: their suites send thousands of requests
 * (the lookup flood), which every covered mutant runs again, about 40 minutes on 2 cores.
 */
const TOKEN_KEEPERS = [
  'tokens/token-keeper',
  'tokens/token-matcher',
  'tenants/tenant-keeper',
  'tenants/tenant-cache',
  'tenants/lookup-budget',
].map((name) => `src/receiver/${name}.ts`);

export const SCOPES = {
  /** What an attacker's request meets first; CI runs it on every build and fails under `minimum`. */
  'security-core': {
    title: 'Security core',
    mutate: [
      'src/crypto/**/*.ts',
      'src/input/**/*.ts',
      'src/events/**/*.ts',
      ...RECEIVER_CORE,
      // Tenant mode's namespacing of dedup keys: one site's ids must never reach another's.
      'src/dedup/tenant-scope.ts',
      '!src/**/*.test.ts',
    ],
    minimum: 90,
  },
  /** Token sources, rotation windows and tenant lookups: run by hand (see TOKEN_KEEPERS). */
  tokens: {
    title: 'Token sources and tenant lookups',
    mutate: TOKEN_KEEPERS,
    minimum: 90,
  },
  /** The rest of the receiver and the dedup stores: run by hand (about half an hour on 2 cores). */
  'dedup-receiver': {
    title: 'Dedup and the rest of the receiver',
    mutate: [
      'src/dedup/**/*.ts',
      'src/receiver/**/*.ts',
      ...[...RECEIVER_CORE, ...TOKEN_KEEPERS].map((file) => `!${file}`),
      '!src/dedup/tenant-scope.ts',
      '!src/**/*.test.ts',
    ],
    minimum: 90,
  },
  /**
   * Queue mode's worker, retry and job source. Its suites join the run only for this scope
   * (vitest.mutation.config.ts): the worker through an in-memory job source; the BullMQ and
   * pg-boss suites need Redis or PostgreSQL, which the mutation run does not start.
   */
  queue: {
    title: 'Queue mode: the worker and its retries',
    mutate: ['src/queue/**/*.ts', '!src/**/*.test.ts'],
    minimum: 85,
  },
  /**
   * /publish: apart from the queue because its property and bounded-sanitizer suites make it
   * the slowest scope (about 1 500 mutants), so each can be measured in the time there is.
   */
  publish: {
    title: '/publish',
    mutate: ['src/publish/**/*.ts', '!src/**/*.test.ts'],
    minimum: 85,
  },
};
