import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupStore } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { runCli } from '../cli/run-cli.js';
import { listen } from '../helpers/listen.js';

// Issue 46: the `rotation` check's own requests were kept, and reported "dropped" when the
// window ended. They carry no delivery id, so no token could ever verify them later: they
// are answered as before (503 while armed) and kept no more.

const OLD = 'cli-rotation-kept-old-token-0123';
const NEW = 'cli-rotation-kept-new-token-4567';

describe('webhook-cms-receiver rotation <url>', () => {
  it('reports an armed window and an unknown token, and leaves nothing kept', async () => {
    const dedup = memoryDedupStore();
    const errors: string[] = [];
    const receiver = createReceiver({
      token: [OLD],
      rotatingUntil: Date.now() + 3_600_000,
      dedup,
      logger: { warn: () => {}, error: (line: string) => void errors.push(line) },
    });
    const server = await listen(createServer(webhookHandler(receiver, {})));
    try {
      const run = await runCli(['rotation', `${server.url}/webhook`, '--json'], {
        env: { WEBHOOK_TOKEN: NEW },
        secret: NEW,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ window: 'armed', token: 'kept-until-known' });
      expect(await dedup.kept!.list()).toEqual([]);
      // A planned rotation is no fault of this host: nothing at error.
      expect(errors).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
