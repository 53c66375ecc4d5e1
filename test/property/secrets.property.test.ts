import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { providers } from '../helpers/providers.js';
import { tokenArb } from './arbitraries.js';
import { PROPERTY_TIMEOUT_MS, propertyFile } from './budget.js';
import { runLeakScenarios } from './leak-scenarios.js';

/** Long enough that finding one by chance in ordinary output is not a worry. */
const secretTokenArb = fc
  .tuple(fc.constantFrom('whsec_', 'tok-', ''), tokenArb, tokenArb)
  .map(([prefix, a, b]) => `${prefix}${a}${b}`.padEnd(16, 'Z'));

describe('no token or computed signature leaks, whatever the tokens', () => {
  const check = propertyFile('secrets', ['secrets']);

  it.each(providers)(
    'with %s: every refusal and failure, through verify, handle and the Fetch adapter',
    async (_name, crypto) => {
      await check(
        'secrets',
        fc.tuple(fc.uniqueArray(secretTokenArb, { minLength: 1, maxLength: 3 }), fc.nat()),
        async ([tokens, pick]) => {
          const leaks = await runLeakScenarios(tokens, pick % tokens.length, crypto);
          expect(leaks.texts.length).toBeGreaterThan(100);
          for (const secret of [...tokens, ...leaks.computed]) {
            const leaked = leaks.texts.filter((text) => text.includes(secret));
            expect(leaked, `found ${secret.slice(0, 4)}…`).toEqual([]);
          }
        },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
