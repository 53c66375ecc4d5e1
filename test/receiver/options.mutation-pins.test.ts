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
});
