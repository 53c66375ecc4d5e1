// What AWS does around the two functions, locally: a Function URL (an HTTP request becomes a
// payload 2.0 event for the receiver) and the SQS event source mapping (long polling, up to
// 10 messages a batch, the worker's batchItemFailures left on the queue).
import { createServer } from 'node:http';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

/** Serves `handler` as a Function URL does, on every path. */
export function functionUrl(handler, { port, host }) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const url = new URL(req.url, 'http://localhost');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
    );
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      headers,
      requestContext: {
        http: { method: req.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress },
      },
      body: Buffer.concat(chunks).toString('base64'),
      isBase64Encoded: true,
    };
    const result = await handler(event);
    res.writeHead(result.statusCode ?? 200, result.headers ?? {});
    res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

/** Polls the queue and invokes `handler` with each batch, as Lambda's SQS trigger does. */
export function sqsTrigger(handler, { queueUrl }) {
  const sqs = new SQSClient({});
  const poll = async () => {
    for (;;) {
      const { Messages = [] } = await sqs
        .send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 2,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
        )
        .catch((error) => {
          console.error(`sqs trigger: ${error.message}`);
          return {};
        });
      if (Messages.length === 0) continue;
      const Records = Messages.map((m) => ({
        messageId: m.MessageId,
        receiptHandle: m.ReceiptHandle,
        body: m.Body,
        attributes: m.Attributes ?? {},
        messageAttributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([name, v]) => [
            name,
            { stringValue: v.StringValue, dataType: v.DataType },
          ]),
        ),
        eventSource: 'aws:sqs',
      }));
      const { batchItemFailures } = await handler({ Records });
      if (batchItemFailures.length > 0)
        console.log(`worker: ${batchItemFailures.length} of ${Records.length} left on the queue for a retry`);
    }
  };
  void poll();
}
