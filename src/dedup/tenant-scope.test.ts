import { describe, expect, it } from 'vitest';
import { tenantScoped } from './tenant-scope.js';

describe('tenantScoped: ids namespaced by tenant', () => {
  it('leaves an id alone outside tenant mode', () => {
    expect(tenantScoped(undefined, 'd1')).toBe('d1');
  });

  it("puts the tenant id's length first, so no two pairs share a key", () => {
    expect(tenantScoped('site-a', 'd1')).toBe('tenant:6:site-a:d1');
    expect(tenantScoped('', 'd1')).toBe('tenant:0::d1');
    // The pairs an unprefixed join would confuse: ('a:b', 'c') and ('a', 'b:c').
    expect(tenantScoped('a:b', 'c')).not.toBe(tenantScoped('a', 'b:c'));
    expect(tenantScoped('a', 'b:c')).toBe('tenant:1:a:b:c');
    expect(tenantScoped('a:b', 'c')).toBe('tenant:3:a:b:c');
  });
});
