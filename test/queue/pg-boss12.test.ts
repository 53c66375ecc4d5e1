import { vi } from 'vitest';
import { onNode22, rerunOnNode22 } from './pg-boss-node22.js';

// pg-boss 12 (the `pg-boss12` alias, ESM with a named `PgBoss`) for this file and for
// webhook-cms-receiver/pg-boss. It needs Node 22.12: on an older Node the file runs again
// under the matrix's Node 22.
vi.mock('pg-boss', async () => {
  const module = await import('pg-boss12');
  return { ...module, default: module.PgBoss };
});

if (onNode22()) {
  const { pgBossScenarios } = await import('./pg-boss-scenarios.js');
  await pgBossScenarios(12);
} else rerunOnNode22('pg-boss 12', import.meta.url, 'vitest.config.ts');
