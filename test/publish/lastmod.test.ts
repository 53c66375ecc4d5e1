import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, nextLastmod, sameContent } from 'webhook-cms-receiver/publish';
import { articleFixture } from 'webhook-cms-receiver/testing';

const article = articleFixture({ id: 'a', published_at: '2026-05-01T08:00:00Z' });
const at = (iso: string) => ({ now: Date.parse(iso) });

describe('contentHash', () => {
  it('is the SHA-256 hex of the content fields in their canonical order', async () => {
    const key = JSON.stringify([
      article.title,
      article.slug,
      article.content_html,
      article.content_markdown,
      article.meta_description,
      article.featured_image_url,
      article.tags,
    ]);
    expect(await contentHash(article)).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
  });

  it('ignores status, dates, id and fields it does not know', async () => {
    const other = { ...article, id: 'b', status: 'draft', published_at: null, scheduled_at: '2027-01-01T00:00:00Z' };
    expect(await contentHash({ ...other, extra: 1 } as typeof other)).toBe(await contentHash(article));
    expect(sameContent(article, other)).toBe(true);
  });

  it('changes with every content field', async () => {
    const hash = await contentHash(article);
    const edits = [
      { title: 'x' },
      { slug: 'x' },
      { content_html: 'x' },
      { content_markdown: 'x' },
      { meta_description: 'x' },
      { featured_image_url: null },
      { tags: ['x'] },
    ];
    for (const edit of edits) {
      expect(await contentHash({ ...article, ...edit })).not.toBe(hash);
      expect(sameContent(article, { ...article, ...edit })).toBe(false);
    }
  });

  it('does not run two fields together', async () => {
    expect(await contentHash({ ...article, title: 'ab', slug: 'c' })).not.toBe(
      await contentHash({ ...article, title: 'a', slug: 'bc' }),
    );
  });
});

describe('nextLastmod', () => {
  it('starts from published_at, or now when that is absent, invalid or ahead', async () => {
    expect((await nextLastmod(null, article, at('2026-06-01T00:00:00Z'))).lastmod).toBe('2026-05-01T08:00:00.000Z');
    for (const published_at of [null, 'soon', '2026-07-01T00:00:00Z'])
      expect((await nextLastmod(undefined, { ...article, published_at }, at('2026-06-01T00:00:00Z'))).lastmod).toBe(
        '2026-06-01T00:00:00.000Z',
      );
  });

  it('keeps the lastmod while the content is the same, and moves it when it changes', async () => {
    const first = await nextLastmod(null, article, at('2026-06-01T00:00:00Z'));
    const republished = { ...article, status: 'review', published_at: '2026-06-02T00:00:00Z' };
    expect(await nextLastmod(first, republished, at('2026-06-03T00:00:00Z'))).toEqual(first);
    const edited = await nextLastmod(first, { ...article, content_html: '<p>new</p>' }, at('2026-06-04T00:00:00Z'));
    expect(edited).toEqual({
      hash: await contentHash({ ...article, content_html: '<p>new</p>' }),
      lastmod: '2026-06-04T00:00:00.000Z',
    });
  });
});
