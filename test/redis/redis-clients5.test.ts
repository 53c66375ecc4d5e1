import { vi } from 'vitest';
import { redisStoreScenarios } from './redis-store-scenarios.js';

// node-redis 5 and ioredis 5 (the `redis5` and `ioredis5` aliases) for the clients the store gets.
vi.mock('redis', () => import('redis5'));
vi.mock('ioredis', () => import('ioredis5'));

redisStoreScenarios({ redis: 5, ioredis: 5 });
