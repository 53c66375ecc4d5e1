// `npm run dev`: both functions on this machine, against DynamoDB Local and fauxqs (an SQS and
// S3 emulator), with the table, queues and bucket of template.yaml. The receiver answers at
// http://127.0.0.1:3000/ (PORT, HOST) as its Function URL would; the worker takes what the
// receiver enqueues, as its SQS trigger would.
import { createResources, startEmulators } from './local/emulators.mjs';
import { functionUrl, sqsTrigger } from './local/lambda.mjs';

if (!process.env.WEBHOOK_TOKEN) {
  console.error('Set WEBHOOK_TOKEN to the token from Profile Settings → CMS Integration.');
  process.exit(1);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

const emulators = await startEmulators();
console.log(`DynamoDB Local on ${emulators.dynamodb}, fauxqs (SQS and S3) on ${emulators.sqs}`);
const names = { table: 'webhook-deliveries', queueName: 'webhooks', bucket: 'webhook-bodies' };
const { queueUrl } = await createResources(names);
Object.assign(process.env, { QUEUE_URL: queueUrl, BODIES_BUCKET: names.bucket, DEDUP_TABLE: names.table });

const receiver = await import('./receiver.mjs');
const worker = await import('./worker.mjs');
sqsTrigger(worker.handler, { queueUrl });
console.log(`worker polling ${queueUrl}`);
const host = process.env.HOST ?? '127.0.0.1';
const server = await functionUrl(receiver.handler, { port: Number(process.env.PORT ?? 3000), host });
console.log(`receiving on http://${host}:${server.address().port}/`);
