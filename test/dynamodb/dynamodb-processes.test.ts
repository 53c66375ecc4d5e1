import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { childLines } from '../helpers/child-lines.js';
import { bundleDynamoDbReceiver } from './child-bundle.js';
import { describeWithDynamoDb, dynamoDbEndpoint, freshPrefix, freshTable, localClient } from './dynamodb-clients.js';

const token = 'dynamodb-processes-token';
const script = fileURLToPath(new URL('./receiver-child.mjs', import.meta.url));

interface Child {
  process: ChildProcess;
  url: string;
  ran: string[];
}

describeWithDynamoDb('dynamoDbDedupStore across two receiver processes', () => {
  let bundle: string;
  const children: Child[] = [];
  beforeAll(async () => {
    bundle = await bundleDynamoDbReceiver();
    const client = localClient();
    const table = await freshTable(client);
    client.destroy();
    const prefix = freshPrefix();
    for (const name of ['a', 'b']) {
      const child = spawn(process.execPath, [script], {
        env: {
          ...process.env,
          BUNDLE: bundle,
          ENDPOINT: dynamoDbEndpoint,
          TABLE: table,
          PREFIX: prefix,
          TOKEN: token,
          NAME: name,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const { waitFor } = childLines(child, `receiver ${name}`);
      const ran: string[] = [];
      child.stdout!.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line.startsWith('ran ')) ran.push(line.slice(4));
      });
      const port = (await waitFor(/^listening \d+$/)).split(' ')[1];
      children.push({ process: child, url: `http://127.0.0.1:${port}/`, ran });
    }
  }, 60_000);
  afterAll(() => {
    for (const child of children) child.process.kill('SIGKILL');
    if (bundle) rmSync(dirname(bundle), { recursive: true, force: true });
  });

  it('runs the handler once for 40 concurrent copies of one delivery sent to both processes over HTTP', async () => {
    const deliveryId = randomUUID();
    const signed = signDelivery({ token, deliveryId, payload: articleSyncPayload({ article: { slug: 'forty' } }) });
    const send = (url: string) =>
      fetch(url, { method: 'POST', headers: signed.headers, body: signed.body }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as { published_url?: string; duplicate?: boolean },
      }));
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => send(children[i % 2]!.url)));
    const ran = children.flatMap((child) => child.ran.filter((id) => id === deliveryId));
    expect(ran).toHaveLength(1);
    const handled = answers.filter((answer) => answer.status === 200 && !answer.body.duplicate);
    expect(handled).toHaveLength(1);
    // Every other copy is a 409 (in flight) or a duplicate carrying the one stored answer.
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body.published_url).toBe(handled[0]!.body.published_url);
      else expect(answer.status).toBe(409);
    }
    // The service's retries after that: duplicates on both processes, the handler not run again.
    for (const child of children)
      expect(await send(child.url)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(children.flatMap((child) => child.ran.filter((id) => id === deliveryId))).toHaveLength(1);
  }, 60_000);
});
