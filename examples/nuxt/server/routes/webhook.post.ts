// POST /webhook in Nuxt 3 and 4 (and Nitro, under routes/): the endpoint to paste into the
// service's CMS Integration settings. Nothing may read the body before it: no readBody in a
// server middleware that runs for this path.
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/h3';
import { isPublic } from 'webhook-cms-receiver/publish';

// Nitro loads a server route on its first request, so `nuxt build` never runs this line and
// does not need the token; the receiver then lives as long as the server process.
const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN ?? '' });
const publicBaseUrl = (process.env.PUBLIC_BASE_URL ?? 'https://blog.example.com').replace(/\/+$/, '');

export default webhookHandler(receiver, {
  'article.sync': ({ article, deliveryId }) => {
    console.log(`sync  ${article.slug} (${article.status}) "${article.title}" [${deliveryId}]`);
    // Every status change arrives, drafts included: link only what is public now (a scheduled
    // article is not yet). Remove a non-public article from your site here.
    if (!isPublic(article)) return;
    // Store the article here; return the URL it will have on your site.
    return { publishedUrl: `${publicBaseUrl}/${encodeURIComponent(article.slug)}` };
  },
  'article.trash': ({ article, deliveryId }) => console.log(`trash ${article.slug} [${deliveryId}]`),
  test: () => console.log('test  Test Connection received'),
  unknown: ({ name }) => console.log(`skip  unknown event ${name}`),
});
