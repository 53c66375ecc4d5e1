import { describe, expect, it, vi } from 'vitest';
import { createReceiver, WebhookError } from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_envelope_fields_token';

/** Verifies a signed envelope; answers the refusal's reason, or 'accepted'. */
async function verdict(payload: object): Promise<string> {
  const receiver = createReceiver({ token });
  return receiver.verify(signDelivery({ token, payload }) as never).then(
    () => 'accepted',
    (error: unknown) => {
      expect(error).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).code).toBe('invalid_payload');
      return (error as WebhookError).reason;
    },
  );
}

const reasonFor = (field: string, event: string) => `${field} is missing or has the wrong type for ${event}`;

const SYNC_STRINGS = ['id', 'title', 'slug', 'status', 'content_markdown', 'content_html', 'meta_description'];
const SYNC_NULLABLE = ['featured_image_url', 'scheduled_at', 'published_at'];

describe('every field of an article.sync delivery has its documented type, or the delivery is refused (400)', () => {
  it.each(SYNC_STRINGS)('article.%s must be a string', async (field) => {
    const payload = articleSyncPayload();
    for (const wrong of [7, null, ['x'], { text: 'x' }]) {
      (payload.article as unknown as Record<string, unknown>)[field] = wrong;
      expect(await verdict(payload)).toBe(reasonFor(`article.${field}`, 'article.sync'));
    }
  });

  it.each(SYNC_NULLABLE)('article.%s must be a string or null', async (field) => {
    const payload = articleSyncPayload();
    const article = payload.article as unknown as Record<string, unknown>;
    article[field] = null;
    expect(await verdict(payload)).toBe('accepted');
    for (const wrong of [7, false, ['x']]) {
      article[field] = wrong;
      expect(await verdict(payload)).toBe(reasonFor(`article.${field}`, 'article.sync'));
    }
    delete article[field];
    expect(await verdict(payload)).toBe(reasonFor(`article.${field}`, 'article.sync'));
  });

  it.each(['id', 'domain'])('profile.%s must be a string, in article.sync and article.trash', async (field) => {
    for (const payload of [articleSyncPayload(), articleTrashPayload()]) {
      (payload.profile as unknown as Record<string, unknown>)[field] = 1;
      expect(await verdict(payload)).toBe(reasonFor(`profile.${field}`, payload.event));
    }
  });

  it('a profile that is not an object is refused, after a fitting article', async () => {
    expect(await verdict({ ...articleSyncPayload(), profile: null })).toBe(reasonFor('profile', 'article.sync'));
    expect(await verdict({ ...articleTrashPayload(), profile: 'p' })).toBe(reasonFor('profile', 'article.trash'));
  });
});

describe('the article of an article.trash delivery', () => {
  it.each(['id', 'slug'])('article.%s must be a string', async (field) => {
    const payload = articleTrashPayload();
    (payload.article as unknown as Record<string, unknown>)[field] = 3;
    expect(await verdict(payload)).toBe(reasonFor(`article.${field}`, 'article.trash'));
  });

  it('needs no more than id and slug, and is handed over as sent', async () => {
    const handler = vi.fn();
    const payload = articleTrashPayload({ article: { id: 'a-1', slug: 'gone' } });
    const answer = await createReceiver({ token }).handle(signDelivery({ token, payload }), {
      'article.trash': handler,
    });
    expect(answer.status).toBe(200);
    expect(handler.mock.calls[0]![0]).toMatchObject({ type: 'article.trash', article: { id: 'a-1', slug: 'gone' } });
  });

  it('is refused when it is not an object', async () => {
    expect(await verdict({ ...articleTrashPayload(), article: ['a-1'] })).toBe(reasonFor('article', 'article.trash'));
  });
});
