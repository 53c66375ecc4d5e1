import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { providers } from '../helpers/providers.js';

/**
 * How many generated cases each property runs, per crypto provider where it says so. The
 * suite's total is computed from this table, and every file checks that it ran exactly its
 * share, so the printed total is what actually ran.
 */
const FULL_BUDGET = {
  tampering: { runs: 20_000, perProvider: true },
  roundTrip: { runs: 12_000, perProvider: true },
  anyInput: { runs: 12_000, perProvider: true },
  signedJunk: { runs: 6_000, perProvider: true },
  prototypeKeys: { runs: 4_000, perProvider: true },
  secrets: { runs: 100, perProvider: true },
} as const;

/**
 * PROPERTY_BUDGET scales every property's runs (`0.01` runs 1/100 of them, at least one case
 * each); the mutation run uses it, since it runs the suite once per mutant. Unset means 1.
 */
export const BUDGET_SCALE = budgetScale(process.env.PROPERTY_BUDGET);

function budgetScale(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const scale = Number(text);
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new Error(`PROPERTY_BUDGET must be a positive number, got ${text}`);
  return scale;
}

export const BUDGET = Object.fromEntries(
  Object.entries(FULL_BUDGET).map(([name, { runs, perProvider }]) => [
    name,
    { runs: Math.max(1, Math.round(runs * BUDGET_SCALE)), perProvider },
  ]),
) as { readonly [K in keyof typeof FULL_BUDGET]: { readonly runs: number; readonly perProvider: boolean } };

export type PropertyName = keyof typeof FULL_BUDGET;

const planned = (name: PropertyName) => BUDGET[name].runs * (BUDGET[name].perProvider ? providers.length : 1);

export const SUITE_TOTAL = (Object.keys(BUDGET) as PropertyName[]).reduce((sum, name) => sum + planned(name), 0);

/** A fixed seed from FC_SEED reproduces a CI failure locally; fast-check prints the seed of every failure. */
const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };

/**
 * Registers the counting for one test file: returns `check`, which runs a property with its
 * budget and counts every case, and prints the file's count and the suite total at the end.
 */
export function propertyFile(label: string, names: PropertyName[]) {
  const ran = new Map<PropertyName, number>();
  afterAll(() => {
    const total = names.reduce((sum, name) => sum + (ran.get(name) ?? 0), 0);
    console.log(
      `[property] ${label}: ${total} generated cases run; whole property suite: ${SUITE_TOTAL} cases (test/property/budget.ts)`,
    );
    for (const name of names) expect(ran.get(name), `cases run for ${name}`).toBe(planned(name));
  });
  return async function check<T>(
    name: PropertyName,
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void> | void,
  ): Promise<void> {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        ran.set(name, (ran.get(name) ?? 0) + 1);
        await predicate(value);
      }),
      { numRuns: BUDGET[name].runs, ...seed },
    );
  };
}

/** A timeout that only guards against a hang; no assertion depends on speed. */
export const PROPERTY_TIMEOUT_MS = 300_000;
