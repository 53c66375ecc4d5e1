import { redisStoreScenarios } from './redis-store-scenarios.js';

// The newest client majors; the ones before them are redis-clients5.test.ts, in the matrix.
redisStoreScenarios({ redis: 6, ioredis: 6 });
