import { vi } from 'vitest';
import { onNode22, rerunOnNode22 } from './pg-boss-node22.js';

// pg-boss 11 (the `pg-boss11` alias) for this file and for webhook-cms-receiver/pg-boss, in the
// matrix. It needs Node 22: on an older Node the file runs again under the matrix's Node 22.
vi.mock('pg-boss', () => import('pg-boss11'));

if (onNode22()) {
  const { pgBossScenarios } = await import('./pg-boss-scenarios.js');
  await pgBossScenarios(11);
} else rerunOnNode22('pg-boss 11', import.meta.url, 'vitest.matrix.config.ts');
