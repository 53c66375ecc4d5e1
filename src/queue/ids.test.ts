import { describe, expect, it } from 'vitest';
import { queueJobKey } from './ids.js';

describe('queueJobKey: what an engine derives its job id from', () => {
  it('is the delivery id, namespaced by the tenant in tenant mode, and null without an id', () => {
    expect(queueJobKey({ deliveryId: 'd-1' })).toBe('d-1');
    expect(queueJobKey({ deliveryId: 'd-1', tenant: 'site-a' })).toBe('tenant:6:site-a:d-1');
    expect(queueJobKey({ deliveryId: null })).toBeNull();
    expect(queueJobKey({ deliveryId: null, tenant: 'site-a' })).toBeNull();
  });
});
