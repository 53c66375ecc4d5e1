import { describe, expect, it } from 'vitest';
import { providers } from '../helpers/providers.js';
import { runLeakScenarios } from '../property/leak-scenarios.js';

const EVERY_REFUSAL = [
  'payload_too_large',
  'invalid_token',
  'invalid_timestamp',
  'request_expired',
  'invalid_signature',
  'invalid_payload',
  'missing_delivery_id',
  'method_not_allowed',
  'body_already_parsed',
];

describe.each(providers)('the token never leaks (%s)', (_name, crypto) => {
  it('appears in no error, reason, hook argument, console line or response body, for every refusal and failure', async () => {
    const tokens = ['whsec_current_7Hq2LmZ9xV4', 'whsec_previous_Kp8Rt3Nw6Y'];
    for (const signedWith of [0, 1]) {
      const leaks = await runLeakScenarios(tokens, signedWith, crypto);
      // The scenarios really produced output of every kind, so the search below searched something.
      expect([...leaks.codes].sort()).toEqual([...EVERY_REFUSAL].sort());
      const all = leaks.texts.join('\n');
      for (const seen of [
        'Handler failed',
        'Dedup store unavailable',
        '"duplicate":true',
        'inProgress',
        'the CMS is down',
      ])
        expect(all).toContain(seen);
      expect(leaks.texts.some((text) => text.includes('a hook that throws'))).toBe(true);
      for (const secret of [...tokens, ...leaks.computed]) {
        const leaked = leaks.texts.filter((text) => text.includes(secret));
        expect(leaked, `found ${secret.slice(0, 6)}…`).toEqual([]);
      }
    }
  });
});
