// A receiver in its own process for the multi-process DynamoDB tests: the bundled sources
// (BUNDLE) behind a real node:http server on 127.0.0.1, deduplicating in DynamoDB Local
// (ENDPOINT, TABLE, PREFIX). Prints `listening <port>` when ready and `ran <delivery id>`
// each time its handler runs.
import { createServer } from 'node:http';

const { BUNDLE, ENDPOINT, TABLE, PREFIX, TOKEN, NAME } = process.env;
const { createReceiver, dynamoDbDedupStore, webhookHandler, DynamoDBClient } = await import(BUNDLE);

const client = new DynamoDBClient({
  endpoint: ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const receiver = createReceiver({
  token: TOKEN,
  dedup: dynamoDbDedupStore(client, { table: TABLE, keyPrefix: PREFIX }),
  onError: (error) => process.stderr.write(`${NAME}: ${error.message}\n`),
});
const handlers = {
  'article.sync': async (event) => {
    process.stdout.write(`ran ${event.deliveryId}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // lets the copies overlap
    return { publishedUrl: `https://blog.example.com/${event.article.slug}?by=${NAME}` };
  },
};
const server = createServer(webhookHandler(receiver, handlers));
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
