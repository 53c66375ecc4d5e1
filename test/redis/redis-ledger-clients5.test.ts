import { vi } from 'vitest';
import { redisLedgerScenarios } from './redis-ledger-scenarios.js';

// node-redis 5 and ioredis 5 (the `redis5` and `ioredis5` aliases) for the clients the ledger gets.
vi.mock('redis', () => import('redis5'));
vi.mock('ioredis', () => import('ioredis5'));

redisLedgerScenarios({ redis: 5, ioredis: 5 });
