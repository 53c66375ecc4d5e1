import { describe, expect, it, vi } from 'vitest';
import {
  envelopeOwnTest,
  isPlainObject,
  profileMismatch,
  syncArticleMismatch,
  trashArticleMismatch,
} from './envelope-schema.js';

type Check = (value: unknown) => string | undefined;

const syncArticle = () => ({
  id: '6f0c3c7e-0000-4000-8000-000000000001',
  title: 'Ten SEO tips',
  slug: 'ten-seo-tips',
  status: 'published',
  content_markdown: '# Ten',
  content_html: '<h1>Ten</h1>',
  meta_description: 'Tips',
  featured_image_url: 'https://img.example.com/a.png',
  tags: ['seo', 'tips'],
  scheduled_at: '2026-11-01T10:00:00Z',
  published_at: '2026-11-02T10:00:00Z',
});
const trashArticle = () => ({ id: '6f0c3c7e-0000-4000-8000-000000000002', slug: 'gone' });
const profile = () => ({ id: 'profile-1', domain: 'blog.example.com' });

const STRINGS: Record<string, string[]> = {
  sync: ['id', 'title', 'slug', 'status', 'content_markdown', 'content_html', 'meta_description'],
  trash: ['id', 'slug'],
  profile: ['id', 'domain'],
};
const NULLABLE = ['featured_image_url', 'scheduled_at', 'published_at'];
const WRONG = [42, null, undefined, true, {}, ['x'], 0];

const cases: Array<[string, Check, () => Record<string, unknown>, string, string[], string[]]> = [
  ['the article of article.sync', syncArticleMismatch, syncArticle, 'article', STRINGS.sync!, NULLABLE],
  ['the article of article.trash', trashArticleMismatch, trashArticle, 'article', STRINGS.trash!, []],
  ['the profile', profileMismatch, profile, 'profile', STRINGS.profile!, []],
];

describe.each(cases)('%s', (_, check, valid, prefix, strings, nullable) => {
  it('fits when every field has its type', () => {
    expect(check(valid())).toBeUndefined();
  });

  it('is refused when it is not an object', () => {
    for (const value of [null, undefined, 'x', 1, [valid()]]) expect(check(value)).toBe(prefix);
  });

  it.each(strings)('names %s when it is not a string, or missing', (field) => {
    for (const wrong of WRONG) expect(check({ ...valid(), [field]: wrong }), String(wrong)).toBe(`${prefix}.${field}`);
    const { [field]: _gone, ...missing } = valid();
    expect(check(missing)).toBe(`${prefix}.${field}`);
  });

  it.each(strings.concat(nullable))('names %s when it is only inherited, not the object’s own', (field) => {
    const { [field]: inherited, ...rest } = valid();
    const object = Object.assign(Object.create({ [field]: inherited }), rest);
    expect(check(object)).toBe(`${prefix}.${field}`);
  });

  it.each(nullable)('accepts %s as null or a string, and names it for any other type or when missing', (field) => {
    expect(check({ ...valid(), [field]: null })).toBeUndefined();
    expect(check({ ...valid(), [field]: '' })).toBeUndefined();
    for (const wrong of [42, true, {}, ['x'], undefined]) {
      expect(check({ ...valid(), [field]: wrong }), String(wrong)).toBe(`${prefix}.${field}`);
    }
    const { [field]: _gone, ...missing } = valid();
    expect(check(missing)).toBe(`${prefix}.${field}`);
  });
});

describe('the tags of article.sync', () => {
  it('accepts an array of strings, empty included', () => {
    expect(syncArticleMismatch({ ...syncArticle(), tags: [] })).toBeUndefined();
  });

  it('names article.tags when it is not an array of strings, or missing, or inherited', () => {
    for (const tags of ['seo', null, { 0: 'seo', length: 1 }, ['seo', 1], [1, 'seo'], [null]]) {
      expect(syncArticleMismatch({ ...syncArticle(), tags }), JSON.stringify(tags)).toBe('article.tags');
    }
    const { tags, ...rest } = syncArticle();
    expect(syncArticleMismatch(rest)).toBe('article.tags');
    expect(syncArticleMismatch(Object.assign(Object.create({ tags }), rest))).toBe('article.tags');
  });
});

describe('the order fields are checked in', () => {
  it('names the first wrong field of the article of article.sync', () => {
    expect(syncArticleMismatch({})).toBe('article.id');
    expect(syncArticleMismatch({ ...syncArticle(), title: 1, published_at: 1 })).toBe('article.title');
  });
});

describe('isPlainObject', () => {
  it('is true for objects only: not null, arrays or other types', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    for (const value of [null, undefined, [], 'x', 1, true]) expect(isPlainObject(value)).toBe(false);
  });
});

describe('a polluted Object.prototype', () => {
  // Each check picks its own-field test once per object: pollution that arrives between two
  // deliveries must be seen by the next one, for every field.
  const fieldsOf = (check: Check) =>
    cases.find(([, c]) => c === check)![4].concat(check === syncArticleMismatch ? [...NULLABLE, 'tags'] : []);

  it.each(cases)('%s: a field only Object.prototype holds does not count', (_, check, valid, prefix) => {
    expect(check(valid())).toBeUndefined();
    for (const field of fieldsOf(check)) {
      const { [field]: value, ...missing } = valid();
      Object.defineProperty(Object.prototype, field, { value, configurable: true, writable: true });
      try {
        expect(check(missing), field).toBe(`${prefix}.${field}`);
        expect(check(valid()), field).toBeUndefined();
      } finally {
        delete (Object.prototype as Record<string, unknown>)[field];
      }
      expect(check(missing), field).toBe(`${prefix}.${field}`);
    }
  });

  it('an object without a prototype is read as it is', () => {
    for (const [, check, valid] of cases) expect(check(Object.assign(Object.create(null), valid()))).toBeUndefined();
  });
});

describe('own fields: one prototype check per object, Object.hasOwn only where the prototype is odd', () => {
  /** The checks over objects of one kind, and how often they called Object.hasOwn. */
  function hasOwnCalls(make: <T extends object>(fields: T) => T): number {
    const spy = vi.spyOn(Object, 'hasOwn');
    try {
      expect(syncArticleMismatch(make(syncArticle()))).toBeUndefined();
      expect(trashArticleMismatch(make(trashArticle()))).toBeUndefined();
      expect(profileMismatch(make(profile()))).toBeUndefined();
      const envelope = make({ event: 'test', timestamp: '2026-11-26T00:00:00Z' });
      expect(envelopeOwnTest(envelope)(envelope, 'event')).toBe(true);
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('reads a JSON object (Object.prototype) and a null-prototype object without Object.hasOwn', () => {
    expect(hasOwnCalls((fields) => JSON.parse(JSON.stringify(fields)))).toBe(0);
    expect(hasOwnCalls((fields) => Object.assign(Object.create(null), fields))).toBe(0);
  });

  it('keeps Object.hasOwn for an object whose prototype is not Object.prototype', () => {
    expect(hasOwnCalls((fields) => Object.assign(Object.create({}), fields))).toBeGreaterThan(0);
  });
});
