import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitsValue, headerLookup, lowerCaseRecord, safeHeaderLookup } from './headers.js';

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

describe('lowerCaseRecord: which header objects are read as they are', () => {
  it('takes names with no upper-case letter as they are, and sends any upper-case ASCII letter to the lookup', () => {
    const lower = { authorization: 'Bearer a', 'x-service-event': 'test', 'x-é': '1' };
    expect(lowerCaseRecord(lower)).toBe(lower);
    for (const name of ['Authorization', 'x-service-evenT', 'X', 'x-Z-9']) {
      expect(lowerCaseRecord({ ...lower, [name]: 'v' }), name).toBeUndefined();
    }
  });

  it('sends a name with a non-ASCII upper-case letter to the lookup too, as toLowerCase sees it', () => {
    // U+212A KELVIN SIGN lower-cases to an ASCII k; U+00C9 to é.
    for (const name of ['x-\u212aey', 'x-\u00c9', '\u00c9']) {
      expect(lowerCaseRecord({ authorization: 'Bearer a', [name]: 'v' }), name).toBeUndefined();
    }
    expect(headerLookup({ 'x-\u212aey': 'v' })('x-key')).toBe('v');
  });

  it('sends objects to the lookup when their prototype could supply a delivery header', () => {
    const lower = { authorization: 'Bearer a' };
    expect(lowerCaseRecord(Object.assign(Object.create(null), lower))).toBeDefined();
    expect(lowerCaseRecord(Object.assign(Object.create({ 'x-service-signature': 'x' }), lower))).toBeUndefined();
    Object.defineProperty(Object.prototype, 'x-service-timestamp', { value: '1', configurable: true });
    try {
      expect(lowerCaseRecord(lower)).toBeUndefined();
      expect(headerLookup(lower)('x-service-timestamp')).toBeUndefined();
    } finally {
      delete (Object.prototype as Record<string, unknown>)['x-service-timestamp'];
    }
    expect(lowerCaseRecord(lower)).toBe(lower);
  });

  it('sends a record with a get method, or any prototype but Object.prototype, to the lookup', () => {
    // A plain object with `get` is read through it by headerLookup, as a Headers is.
    const withGet = {
      get: (name: string) => (name === 'authorization' ? 'Bearer from-get' : null),
      authorization: 'x',
    };
    expect(lowerCaseRecord(withGet)).toBeUndefined();
    expect(headerLookup(withGet)('authorization')).toBe('Bearer from-get');
    expect(lowerCaseRecord(Object.assign(Object.create({}), { authorization: 'Bearer a' }))).toBeUndefined();
  });

  it('answers for each object on its own when objects with the same first names alternate', () => {
    const lower = { authorization: 'Bearer a', 'x-service-timestamp': '1', 'x-service-signature': 's' };
    const shorter = { authorization: 'Bearer a', 'x-service-timestamp': '1' };
    const upper = { authorization: 'Bearer a', 'x-service-timestamp': '1', 'X-Service-Signature': 's' };
    const longer = { ...lower, 'x-service-delivery-id': 'd', 'X-Extra': 'e' };
    for (let round = 0; round < 3; round++) {
      expect(lowerCaseRecord(lower)).toBe(lower);
      expect(lowerCaseRecord(upper)).toBeUndefined();
      expect(lowerCaseRecord(shorter)).toBe(shorter);
      expect(lowerCaseRecord(lower)).toBe(lower);
      expect(lowerCaseRecord(longer)).toBeUndefined();
      expect(lowerCaseRecord({})).toEqual({});
    }
  });

  it('answers the same once it has seen more distinct names than it remembers', () => {
    for (let i = 0; i < 700; i++) expect(lowerCaseRecord({ [`x-name-${i}`]: 'v' })).toBeDefined();
    for (let i = 0; i < 700; i += 99) {
      expect(lowerCaseRecord({ [`x-name-${i}`]: 'v', [`X-Name-${i}`]: 'w' })).toBeUndefined();
      expect(headerLookup({ [`x-name-${i}`]: 'v', [`X-Name-${i}`]: 'w' })(`x-name-${i}`)).toBe('v, w');
    }
  });
});

describe('digitsValue: a header that must be all ASCII digits', () => {
  // The definition it replaced, kept here as the reference it must answer like.
  const reference = (text: string) => (/^[0-9]+$/.test(text) ? Number(text) : undefined);

  it('reads every digit, and nothing next to them in ASCII', () => {
    expect(digitsValue('0123456789')).toBe(123456789);
    expect(digitsValue('9')).toBe(9);
    expect(digitsValue('0')).toBe(0);
    expect(digitsValue('1764167000')).toBe(1764167000);
    // '/' and ':' sit just below '0' and just above '9'.
    for (const text of ['', '/', ':', '1/', '1:', ' 1', '1 ', '+1', '-1', '1.0', '1e3', '0x1', '١٢', '１']) {
      expect(digitsValue(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('answers as /^[0-9]+$/ then Number() for any text up to 2^53', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 15 });
    const near = fc.string({ unit: fc.constantFrom(...'0123456789/: a+-.e'), maxLength: 12 });
    fc.assert(fc.property(fc.oneof(digits, near, fc.string()), (text) => digitsValue(text) === reference(text)));
  });
});
