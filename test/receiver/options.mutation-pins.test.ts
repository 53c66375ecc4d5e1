import { describe, expect, it } from 'vitest';
import { createReceiver } from 'webhook-cms-receiver';

// Bad options are refused at createReceiver with the option's own name in the message, so
// the fix is obvious from the error alone.

const token = 'whk_option_pins_token';

describe('options refused at createReceiver, each by its name', () => {
  it('maxKeptRequests and maxKeptBytes', () => {
    expect(() => createReceiver({ token, maxKeptRequests: 0 })).toThrow(
      new RangeError('createReceiver: maxKeptRequests must be a positive number, got 0.'),
    );
    expect(() => createReceiver({ token, maxKeptBytes: -1 })).toThrow(
      new RangeError('createReceiver: maxKeptBytes must be a positive number, got -1.'),
    );
  });

  it('rotatingUntil in tenant mode', () => {
    expect(() => createReceiver({ tenants: () => undefined, rotatingUntil: 'soon' })).toThrow(
      /^createReceiver: rotatingUntil must be a Date/,
    );
  });

  it('tokenCacheMs, and rotatingUntil with a fixed token', () => {
    expect(() => createReceiver({ token, tokenCacheMs: 0 })).toThrow(
      new RangeError('createReceiver: tokenCacheMs must be a positive number, got 0.'),
    );
    expect(() => createReceiver({ token, rotatingUntil: 'soon' as never })).toThrow(
      /^createReceiver: rotatingUntil must be a Date/,
    );
  });

  it('tenants that is not a function, with a token, or with a bad lookup cap', () => {
    expect(() => createReceiver({ tenants: 'site-a' as never })).toThrow(
      new TypeError(
        'createReceiver: tenants must be a function called with the SHA-256 hex of the presented token, ' +
          'returning { id, token, profileId?, domain? } or undefined.',
      ),
    );
    expect(() => createReceiver({ tenants: () => undefined, token } as never)).toThrow(
      new TypeError(
        "createReceiver: pass either token or tenants, not both. With tenants, each site's token comes from " +
          "what tenants returns for its hash; a token list would accept any site's token for every site.",
      ),
    );
    expect(() => createReceiver({ tenants: () => undefined, tenantLookupsPerSecond: 0 })).toThrow(
      new RangeError('createReceiver: tenantLookupsPerSecond must be a positive number, got 0.'),
    );
  });
});
