import { describe, expect, it } from 'vitest';
import { readTenant } from './tenant-shape.js';

const SHAPE =
  'tenants must return { id: string, token: string | string[], profileId?: string, domain?: string } for a known ' +
  'token hash, or undefined for an unknown one: ';

/** The exact error readTenant throws for `value`. */
function refusal(value: unknown): string {
  try {
    readTenant(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('readTenant accepted it');
}

describe('readTenant: what tenants returned, checked', () => {
  it('reads no tenant from undefined or null: an unknown token', () => {
    expect(readTenant(undefined)).toBeUndefined();
    expect(readTenant(null)).toBeUndefined();
  });

  it('takes a single token as a list of one, and keeps a list as given', () => {
    expect(readTenant({ id: 'site-1', token: 'whk_a' })).toEqual({
      id: 'site-1',
      tokens: ['whk_a'],
      profileId: undefined,
      domain: undefined,
    });
    const tokens = ['whk_new', 'whk_old'];
    expect(readTenant({ id: 'site-1', token: tokens, profileId: 'p-9', domain: 'Blog.Example.com' })).toEqual({
      id: 'site-1',
      tokens,
      profileId: 'p-9',
      domain: 'Blog.Example.com',
    });
  });

  it('reads a finite numeric id or profileId as its text, as a database row may give them', () => {
    expect(readTenant({ id: 42, token: 'whk_a', profileId: 7 })).toMatchObject({ id: '42', profileId: '7' });
    expect(readTenant({ id: 'site-1', token: 'whk_a', profileId: null, domain: null })).toMatchObject({
      profileId: undefined,
      domain: undefined,
    });
  });

  it('refuses what is not an object, naming its type', () => {
    expect(refusal('site-1')).toBe(`${SHAPE}it returned a string.`);
    expect(refusal(7)).toBe(`${SHAPE}it returned a number.`);
    expect(refusal(() => ({}))).toBe(`${SHAPE}it returned a function.`);
  });

  it('refuses a missing, empty or unusable id, saying what it got', () => {
    expect(refusal({ token: 'whk_a' })).toBe(`${SHAPE}id must be a non-empty string; got undefined.`);
    expect(refusal({ id: '', token: 'whk_a' })).toBe(`${SHAPE}id must be a non-empty string; got string.`);
    expect(refusal({ id: null, token: 'whk_a' })).toBe(`${SHAPE}id must be a non-empty string; got null.`);
    expect(refusal({ id: Number.NaN, token: 'whk_a' })).toBe(`${SHAPE}id must be a non-empty string; got number.`);
    expect(refusal({ id: Number.POSITIVE_INFINITY, token: 'whk_a' })).toMatch(/id must be a non-empty string/);
    expect(refusal({ id: ['a', 'b'], token: 'whk_a' })).toBe(
      `${SHAPE}id must be a non-empty string; got an array of 2.`,
    );
    expect(refusal({ id: true, token: 'whk_a' })).toBe(`${SHAPE}id must be a non-empty string; got boolean.`);
  });

  it('refuses a missing token, an empty list, or a list with an empty or non-string token', () => {
    const tokenRefusal = (got: string) =>
      `${SHAPE}token must be a non-empty string or a non-empty array of them; got ${got}.`;
    expect(refusal({ id: 's' })).toBe(tokenRefusal('undefined'));
    expect(refusal({ id: 's', token: '' })).toBe(tokenRefusal('string'));
    expect(refusal({ id: 's', token: [] })).toBe(tokenRefusal('an array of 0'));
    expect(refusal({ id: 's', token: ['whk_a', ''] })).toBe(tokenRefusal('an array of 2'));
    expect(refusal({ id: 's', token: ['whk_a', 7] })).toBe(tokenRefusal('an array of 2'));
    expect(refusal({ id: 's', token: 7 })).toBe(tokenRefusal('number'));
  });

  it('refuses a profileId or domain that is set to something else than text', () => {
    expect(refusal({ id: 's', token: 'whk_a', profileId: {} })).toBe(
      `${SHAPE}profileId must be a string when set; got object.`,
    );
    expect(refusal({ id: 's', token: 'whk_a', profileId: Number.NaN })).toBe(
      `${SHAPE}profileId must be a string when set; got number.`,
    );
    // A domain is a host name: a number is a mistake, not a name.
    expect(refusal({ id: 's', token: 'whk_a', domain: 7 })).toBe(
      `${SHAPE}domain must be a string when set; got number.`,
    );
    expect(refusal({ id: 's', token: 'whk_a', domain: ['a'] })).toBe(
      `${SHAPE}domain must be a string when set; got an array of 1.`,
    );
  });
});
