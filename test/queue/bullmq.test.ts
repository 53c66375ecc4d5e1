import { bullmqScenarios } from './bullmq-scenarios.js';

// The newest BullMQ major; the one before it is bullmq5.test.ts, in the matrix.
bullmqScenarios(6);
