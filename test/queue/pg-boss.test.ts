import { pgBossScenarios } from './pg-boss-scenarios.js';

// pg-boss 10: the newest major that runs on Node 20. 12 (pg-boss12.test.ts) and 11 (in the
// matrix) need Node 22 and run on the Node 22 of the runtime matrix.
await pgBossScenarios(10);
