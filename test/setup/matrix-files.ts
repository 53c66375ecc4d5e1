/**
 * The test files `npm test` leaves to `npm run test:matrix` (issue 35): what proves the library
 * on every host version and in every starter copied out, and the engines under their faults.
 * Each is slow for a reason (a framework build, a second install, a server killed and started),
 * none is the only test of a behaviour `npm test` covers: the newest major of every host, every
 * store and every engine stay in `npm test`. `.ci/run` runs both commands.
 */
export const MATRIX_FILES = [
  // Starters copied out of the repository, installed from the packed package, and recipes.
  'test/examples/**',
  'test/recipes/**',
  // Older majors of each host (the newest runs in npm test).
  'test/adapters/express4.test.ts',
  'test/adapters/fastify4.test.ts',
  'test/adapters/koa2.test.ts',
  'test/adapters/h3v1.test.ts',
  // Older majors of each engine and client (the newest runs in npm test).
  'test/queue/bullmq5.test.ts',
  'test/queue/pg-boss11.test.ts',
  'test/redis/redis-clients5.test.ts',
  // Engines and stores under faults, and across processes.
  'test/queue/*-faults.test.ts',
  'test/queue/bullmq-cluster-faults.test.ts',
  'test/queue/*-starter.test.ts',
  'test/queue/multi-process.test.ts',
  'test/queue/cloudflare-bodies.test.ts',
  'test/redis/multi-process.test.ts',
  'test/redis/redis-faults.test.ts',
  'test/postgres/postgres-faults.test.ts',
  'test/postgres/pglite-faults.test.ts',
  'test/postgres/postgres-processes.test.ts',
];
