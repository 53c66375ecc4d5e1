import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { runStarter } from '../helpers/starter-process.js';
import { expectInstalledFromTarball } from './starter-checks.js';

// Copied out of the repository, installed from the packed tarball, run with `npm run invoke`:
// the script invokes the handler with a recorded event of each HTTP source of Lambda.
const TOKEN = 'lambda-example-token-3f9a21';
let starter: CopiedStarter;

beforeAll(async () => {
  starter = await copyStarter('aws-lambda');
}, 180_000);
afterAll(() => starter?.remove());

const SOURCES = [
  ['REST API (payload 1.0)', 'headers'],
  ['HTTP API (payload 2.0)', 'headers'],
  ['Function URL', 'headers'],
  ['ALB', 'statusDescription,headers'],
  ['ALB, multi-value headers', 'statusDescription,multiValueHeaders'],
] as const;

describe('examples/aws-lambda, copied out of the repository', () => {
  it('depends on webhook-cms-receiver by version range and runs the packed tarball', async () => {
    await expectInstalledFromTarball(starter);
  });

  it('answers every recorded event in its source’s shape: test, sync, redelivery, wrong token', async () => {
    const { code, output } = await runStarter(
      starter.dir,
      { WEBHOOK_TOKEN: TOKEN },
      { command: ['npm', 'run', 'invoke'] },
    );
    expect(code, output).toBe(0);
    for (const [label, shape] of SOURCES) {
      const rows = output.split('\n').filter((line) => line.includes(` ${label.padEnd(26)} `));
      const slug = `https://blog.example.com/hello-`;
      expect(rows.map((row) => row.replace(/\s+/g, ' ').replace(slug, '…'))).toEqual([
        `ok ${label} test 200 {"ok":true} {statusCode,body,isBase64Encoded,${shape}}`,
        expect.stringMatching(/^ok .* article\.sync 200 \{"ok":true,"published_url":"…[a-z-]+"\} \{/),
        expect.stringMatching(/^ok .* redelivery 200 \{"ok":true,"published_url":"…[a-z-]+","duplicate":true\} \{/),
        `ok ${label} wrong token 401 {"error":"Invalid token"} {statusCode,body,isBase64Encoded,${shape}}`,
      ]);
    }
    expect(output).toContain('every source answered as expected');
    expect(output).not.toContain(TOKEN);
  });

  it('runs its handlers once per delivery: the redelivery is answered from dedup', async () => {
    const { output } = await runStarter(starter.dir, { WEBHOOK_TOKEN: TOKEN }, { command: ['npm', 'run', 'invoke'] });
    expect(output.match(/^sync {2}hello-/gm)).toHaveLength(SOURCES.length);
    expect(output.match(/^test {2}Test Connection received$/gm)).toHaveLength(SOURCES.length);
  });

  it('fails the cold start with a clear error when WEBHOOK_TOKEN is empty in production', async () => {
    const handler = await readFile(join(starter.dir, 'handler.mjs'), 'utf8');
    const script = `process.env.WEBHOOK_TOKEN = ''; await import('./handler.mjs').catch((error) => { console.log(error.message); process.exitCode = 3; });`;
    expect(handler).toContain('process.env.WEBHOOK_TOKEN');
    const { code, output } = await runStarter(
      starter.dir,
      {},
      { command: [process.execPath, '--input-type=module', '-e', script] },
    );
    expect(code).toBe(3);
    expect(output).toContain('Is WEBHOOK_TOKEN set?');
  });
});
