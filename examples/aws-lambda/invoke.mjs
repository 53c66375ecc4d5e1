// Invokes handler.mjs here, without AWS: each recorded event in events/ (one per HTTP source of
// Lambda) carries deliveries signed afresh, exactly as the service signs them, with your
// WEBHOOK_TOKEN (or a throwaway one). Prints what the handler answered; exits 1 on a surprise.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { articleSyncPayload, signDelivery, testPayload } from 'webhook-cms-receiver/testing';

process.env.WEBHOOK_TOKEN ||= `local_${randomBytes(16).toString('hex')}`;
const token = process.env.WEBHOOK_TOKEN;
const { handler } = await import('./handler.mjs');

const sources = [
  // A REST API whose binary media types include */* hands every body over base64-encoded.
  { file: 'rest-api', label: 'REST API (payload 1.0)', shape: 'v1', base64: true },
  { file: 'http-api', label: 'HTTP API (payload 2.0)', shape: 'v2' },
  { file: 'function-url', label: 'Function URL', shape: 'v2' },
  { file: 'alb', label: 'ALB', shape: 'v1', lowerCase: true, single: true },
  { file: 'alb-multi-value', label: 'ALB, multi-value headers', shape: 'v1', lowerCase: true, multi: true },
];

/** The recorded event with the delivery's headers and body put where the source puts them. */
function eventFor(source, { headers, body }) {
  const event = JSON.parse(readFileSync(new URL(`./events/${source.file}.json`, import.meta.url), 'utf8'));
  const bytes = Buffer.from(body);
  const sent = { ...headers, 'Content-Length': String(bytes.length) };
  event.body = source.base64 ? bytes.toString('base64') : bytes.toString('utf8');
  event.isBase64Encoded = source.base64 === true;
  if (source.shape === 'v2') {
    for (const [name, value] of Object.entries(sent)) event.headers[name.toLowerCase()] = value;
    return event;
  }
  for (const [sentName, value] of Object.entries(sent)) {
    const name = source.lowerCase ? sentName.toLowerCase() : sentName;
    if (event.headers) event.headers[name] = value;
    if (event.multiValueHeaders) event.multiValueHeaders[name] = [value];
  }
  return event;
}

const context = () => ({ functionName: 'webhook', awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 3000 });
let surprises = 0;

for (const source of sources) {
  const sync = articleSyncPayload({ article: { slug: `hello-${source.file}` } });
  const deliveryId = randomUUID();
  const cases = [
    ['test', signDelivery({ token, payload: testPayload() }), 200],
    ['article.sync', signDelivery({ token, payload: sync, deliveryId }), 200],
    // The service's retry: same body and delivery id, fresh timestamp and signature.
    ['redelivery', signDelivery({ token, payload: sync, deliveryId }), 200],
    ['wrong token', signDelivery({ token: `${token}-not`, payload: testPayload() }), 401],
  ];
  for (const [name, delivery, expected] of cases) {
    const result = await handler(eventFor(source, delivery), context());
    const shape = Object.keys(result).join(',');
    const verdict = result.statusCode === expected ? 'ok  ' : 'FAIL';
    if (verdict !== 'ok  ') surprises++;
    console.log(
      `${verdict} ${source.label.padEnd(26)} ${name.padEnd(13)} ${result.statusCode} ${result.body}  {${shape}}`,
    );
  }
}

console.log(surprises === 0 ? 'every source answered as expected' : `${surprises} unexpected answer(s)`);
process.exitCode = surprises === 0 ? 0 : 1;
