import type { WebhookHandlers } from 'webhook-cms-receiver';
import { isPublic } from 'webhook-cms-receiver/publish';

/** Your publishing code, shared by every recipe: store the article, return where it lives. */
export const handlers: WebhookHandlers = {
  // Drafts arrive too: a URL only for what is public now.
  'article.sync': ({ article }) =>
    isPublic(article) ? { publishedUrl: `https://blog.example.com/${article.slug}` } : undefined,
  'article.trash': ({ article }) => console.log(`trash ${article.slug}`),
};
