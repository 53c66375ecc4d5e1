import { vi } from 'vitest';
import { bullmqScenarios } from './bullmq-scenarios.js';

// BullMQ 5 (the `bullmq5` alias) for this file's tests and for webhook-cms-receiver/bullmq's
// own import of 'bullmq'; it brings its own ioredis 5.
vi.mock('bullmq', () => import('bullmq5'));

bullmqScenarios(5);
