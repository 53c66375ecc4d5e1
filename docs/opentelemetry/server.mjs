// server.mjs: a webhook endpoint that reports each delivery to OpenTelemetry.
//   WEBHOOK_TOKEN=… node --import ./telemetry.mjs server.mjs
import { createServer } from 'node:http';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { openTelemetry } from 'webhook-cms-receiver/opentelemetry';

const receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN, instrumentation: openTelemetry() });
const server = createServer(
  webhookHandler(receiver, {
    'article.sync': async (event) => {
      // Your database and HTTP calls here nest under the `webhook.handler` span.
      return { publishedUrl: `https://blog.example.com/${event.article.slug}` };
    },
  }),
);
server.listen(Number(process.env.PORT ?? 3000), () => console.log(`listening on ${server.address().port}`));
