import { describe, expect, it } from 'vitest';
import { createReceiver, type SyncArticle, type WebhookHandlers } from 'webhook-cms-receiver';
import {
  type ArticleDelivery,
  answerForSlug,
  classifyChange,
  emptySlugHistory,
  loadHtmlSanitizer,
  recordSlug,
} from 'webhook-cms-receiver/publish';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'publish-lifecycle-token';
const site = 'https://blog.example.com';

/** A whole starter in a few lines: verified deliveries in, pages and published_url out. */
async function starter() {
  const sanitize = await loadHtmlSanitizer();
  const store = new Map<string, { delivery: ArticleDelivery; html: string }>();
  let history = emptySlugHistory();
  const kinds: string[] = [];
  const apply = (delivery: ArticleDelivery) => {
    const change = classifyChange(store.get(delivery.article.id)?.delivery, delivery);
    kinds.push(change.kind);
    history = recordSlug(history, delivery);
    const html = delivery.type === 'article.sync' ? sanitize(delivery.article.content_html) : '';
    store.set(delivery.article.id, { delivery, html });
    return change.isPublic ? { publishedUrl: `${site}/articles/${change.slug}` } : undefined;
  };
  const handlers: WebhookHandlers = { 'article.sync': apply, 'article.trash': apply };
  const receiver = createReceiver({ token, ordering: true });
  const send = async (payload: ReturnType<typeof articleSyncPayload> | ReturnType<typeof articleTrashPayload>) =>
    (await receiver.handle(signDelivery({ token, payload }), handlers)).body;
  const page = async (slug: string) => {
    const answer = await answerForSlug(history, slug, {
      load: (id) => {
        const stored = store.get(id);
        return stored?.delivery.type === 'article.sync' ? { ...stored.delivery.article, html: stored.html } : undefined;
      },
      location: (to) => `/articles/${to}`,
    });
    return answer.status === 200 ? { status: 200, html: answer.article.html } : answer;
  };
  return { send, page, kinds };
}

describe('a publishing starter built on /publish, through signed deliveries', () => {
  it('keeps drafts private, publishes, redirects a rename, unpublishes, schedules and trashes', async () => {
    const { send, page, kinds } = await starter();
    const id = crypto.randomUUID();
    const article = (fields: Partial<SyncArticle>, second: number) =>
      articleSyncPayload({
        timestamp: Math.floor(Date.now() / 1000) - 100 + second,
        article: { id, slug: 'tips', published_at: null, content_html: '<p>Tips<script>x()</script></p>', ...fields },
      });

    expect(await send(article({ status: 'draft' }, 1))).toEqual({ ok: true });
    expect(await page('tips')).toEqual({ status: 404 });

    const published = { status: 'published', published_at: '2026-01-01T00:00:00Z' } as const;
    expect(await send(article(published, 2))).toEqual({ ok: true, published_url: `${site}/articles/tips` });
    expect(await page('tips')).toEqual({ status: 200, html: '<p>Tips</p>' });

    expect(await send(article({ ...published, slug: 'seo-tips' }, 3))).toMatchObject({
      published_url: `${site}/articles/seo-tips`,
    });
    expect(await page('tips')).toEqual({ status: 301, location: '/articles/seo-tips' });

    expect(await send(article({ status: 'review', slug: 'seo-tips' }, 4))).toEqual({ ok: true });
    expect(await page('seo-tips')).toEqual({ status: 404 });
    expect(await page('tips')).toEqual({ status: 404 });

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect(await send(article({ ...published, slug: 'seo-tips', scheduled_at: tomorrow }, 5))).toEqual({ ok: true });
    expect(await page('seo-tips')).toEqual({ status: 404 });

    expect(
      await send(
        articleTrashPayload({ timestamp: Math.floor(Date.now() / 1000) - 100 + 6, article: { id, slug: 'seo-tips' } }),
      ),
    ).toEqual({ ok: true });
    expect(await page('seo-tips')).toEqual({ status: 410 });
    expect(await page('tips')).toEqual({ status: 410 });
    expect(kinds).toEqual(['created', 'published', 'renamed', 'unpublished', 'unchanged', 'trashed']);
  });
});
