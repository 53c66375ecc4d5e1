import type { WebhookHandlers } from 'webhook-cms-receiver';

/** Your publishing code, shared by every recipe: store the article, return where it lives. */
export const handlers: WebhookHandlers = {
  'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
  'article.trash': ({ article }) => console.log(`trash ${article.slug}`),
};
