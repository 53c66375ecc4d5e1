import type { PgBoss as PgBoss12 } from 'pg-boss12';
import type PgBoss11 from 'pg-boss11';
import { describe, expectTypeOf, it } from 'vitest';
import type { PgBossLike, PgBossSourceLike } from 'webhook-cms-receiver/pg-boss';

describe('pg-boss types', () => {
  it('a PgBoss of pg-boss 11 and 12 fits pgBossQueue and pgBossSource', () => {
    expectTypeOf<PgBoss12>().toExtend<PgBossLike>();
    expectTypeOf<PgBoss12>().toExtend<PgBossSourceLike>();
    expectTypeOf<PgBoss11>().toExtend<PgBossLike>();
    expectTypeOf<PgBoss11>().toExtend<PgBossSourceLike>();
  });
});
