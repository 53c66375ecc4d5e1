import { redisLedgerScenarios } from './redis-ledger-scenarios.js';

redisLedgerScenarios({ redis: 6, ioredis: 6 });
