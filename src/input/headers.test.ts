import { describe, expect, it } from 'vitest';
import { headerLookup, safeHeaderLookup } from './headers.js';

describe('headerLookup: repeated values', () => {
  it('joins the string copies of a repeated header and ignores anything else in the list', () => {
    const lookup = headerLookup({ authorization: ['Bearer a', 7, null, 'Bearer b'], 'x-mixed': [3] });
    expect(lookup('authorization')).toBe('Bearer a, Bearer b');
    expect(lookup('x-mixed')).toBeUndefined();
  });

  it('reads an empty list as no header, not as an empty one', () => {
    expect(headerLookup({ authorization: [] })('authorization')).toBeUndefined();
    expect(headerLookup({ Authorization: [] })('authorization')).toBeUndefined();
    expect(safeHeaderLookup({ 'x-service-delivery-id': [] })('x-service-delivery-id')).toBeUndefined();
  });

  it('joins copies under names that differ only in case', () => {
    expect(headerLookup({ 'X-Service-Event': 'test', 'x-service-event': ['again', 9] })('x-service-event')).toBe(
      'test, again',
    );
  });
});
