// `npm run demo`: starts the express-publisher example with a fresh token and plays the
// service's side of a short session against it, printing what each delivery got.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const example = join(root, 'examples', 'express-publisher');

await buildIfNeeded();
linkPackageInto(example);
// Imported only now: both need the built package and the link made just above.
const { startPublisher } = await import('../examples/express-publisher/app.mjs');
const { articleSyncPayload, articleTrashPayload, signDelivery, testPayload } = await import(
  'webhook-cms-receiver/testing'
);

// A token from the environment is used as given (the demo test passes one to prove it is never printed).
const token = process.env.WEBHOOK_TOKEN || randomBytes(24).toString('base64url');
const dataDir = await mkdtemp(join(tmpdir(), 'webhook-demo-'));
const serverLog = [];
const publisher = await startPublisher({
  token,
  dataDir,
  port: 0,
  log: (line) => serverLog.push(line),
  onError: (error) => serverLog.push(`handler error: ${error.message}`),
});
const endpoint = `${publisher.url}/webhook`;

const now = () => Math.floor(Date.now() / 1000);
// Envelope timestamps rise step by step: the receiver orders deliveries per article by them.
const at = (step) => now() - 60 + step;
const article = (step, fields) =>
  articleSyncPayload({
    timestamp: at(step),
    article: { id: articleId, slug: 'hello-webhooks', title: 'Hello, webhooks', ...fields },
  });
const articleId = globalThis.crypto.randomUUID();
const syncId = globalThis.crypto.randomUUID();
const steps = [
  {
    event: 'test',
    action: 'Test Connection from the dashboard',
    expect: 200,
    make: () => signDelivery({ token, payload: testPayload() }),
  },
  {
    event: 'article.sync',
    action: 'draft saved',
    expect: 200,
    make: () => signDelivery({ token, payload: article(1, { status: 'draft', published_at: null }) }),
  },
  {
    event: 'article.sync',
    action: 'article published',
    expect: 200,
    make: () => signDelivery({ token, payload: article(2, {}), deliveryId: syncId }),
  },
  {
    event: 'article.sync',
    action: 'same delivery again (service retry)',
    expect: 200,
    duplicate: true,
    make: () => signDelivery({ token, payload: article(2, {}), deliveryId: syncId }),
  },
  {
    event: 'article.sync',
    action: 'slug renamed to hello-again',
    expect: 200,
    make: () => signDelivery({ token, payload: article(3, { slug: 'hello-again' }) }),
  },
  {
    event: 'article.sync',
    action: 'body changed after signing',
    expect: 403,
    make: () => tamper(signDelivery({ token, payload: articleSyncPayload({ article: { title: 'Hello, webhooks' } }) })),
  },
  {
    event: 'article.sync',
    action: 'signed 10 minutes ago',
    expect: 403,
    make: () => signDelivery({ token, payload: articleSyncPayload(), timestamp: now() - 600 }),
  },
  {
    event: 'article.sync',
    action: 'wrong token',
    expect: 401,
    make: () => signDelivery({ token: `${token}-old`, payload: articleSyncPayload() }),
  },
  {
    event: 'article.trash',
    action: 'article deleted',
    expect: 200,
    make: () =>
      signDelivery({
        token,
        payload: articleTrashPayload({ timestamp: at(4), article: { id: articleId, slug: 'hello-again' } }),
      }),
  },
];

console.log(`\nwebhook-cms-receiver demo: the express-publisher example at ${endpoint}`);
console.log(
  `Token: ${process.env.WEBHOOK_TOKEN ? 'from WEBHOOK_TOKEN' : 'freshly generated'} (never printed). Database: PGlite in ${dataDir}\n`,
);

const rows = [];
const pages = [];
const paths = ['/articles/hello-webhooks', '/articles/hello-again'];
// The receiver logs each refusal on the console as it happens. Three are sent on purpose, and
// printed above the table they read as failures: they are held and shown after it, each with
// its step and whether that step asked for it.
const receiverLog = [];
const held = { warn: console.warn, error: console.error };
let current = 0;
for (const level of ['warn', 'error'])
  console[level] = (...args) => receiverLog.push({ step: current, line: format(...args) });
for (const [index, step] of steps.entries()) {
  current = index;
  const { headers, body } = step.make();
  const response = await fetch(endpoint, { method: 'POST', headers, body });
  const text = await response.text();
  const matched =
    response.status === step.expect && (step.duplicate === undefined || JSON.parse(text).duplicate === step.duplicate);
  rows.push([
    String(index + 1),
    step.event,
    step.action,
    String(response.status),
    text,
    matched ? '✓' : `✗ expected ${step.expect}`,
  ]);
  if (step.event !== 'test' && response.status === 200 && step.duplicate === undefined) {
    const seen = [];
    for (const path of paths) {
      const page = await fetch(`${publisher.url}${path}`, { redirect: 'manual' });
      await page.arrayBuffer();
      const location = page.headers.get('location');
      seen.push(`${path} ${page.status}${location ? ` → ${location}` : ''}`);
    }
    pages.push(`  after step ${index + 1}: ${seen.join(', ')}`);
  }
}
Object.assign(console, held);
printTable(['#', 'event', 'what was sent', 'status', 'response body', 'ok'], rows);
console.log(`\nWhat the site answers:\n${pages.join('\n')}`);
if (serverLog.length > 0) console.log(`\nServer log:\n${serverLog.map((line) => `  ${line}`).join('\n')}`);
if (receiverLog.length > 0) {
  const lines = receiverLog.map(({ step, line }) => {
    const why = steps[step].expect >= 400 ? 'expected, sent to be refused' : 'NOT expected';
    return `  step ${step + 1}, ${why}: ${line}`;
  });
  console.log(`\nReceiver log, held until now (it logs each refusal as it happens):\n${lines.join('\n')}`);
}

const failed = rows.filter((row) => row[5] !== '✓').length;
console.log(
  failed === 0
    ? '\nEvery delivery got the answer the contract prescribes.'
    : `\n${failed} step(s) got an unexpected answer.`,
);
console.log(
  'Next: copy examples/express-publisher (or astro-blog, nextjs-blog) and read its README, or see the Other frameworks section of README.md for Hono, Bun, Deno, Workers and Next.js.',
);
await publisher.close();
await rm(dataDir, { recursive: true, force: true });
process.exitCode = failed === 0 ? 0 : 1;

function tamper({ headers, body }) {
  return { headers, body: String(body).replace('Hello, webhooks', 'Hello, attacker') };
}

function printTable(header, body) {
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((row) => row[column].length)));
  const line = (cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((width) => '─'.repeat(width))));
  for (const row of body) console.log(line(row));
}

// A fresh clone has no dist/ yet, and after editing src/ it is stale: build before importing it.
// The type declarations take most of a minute on a small machine, so the wait says it is alive.
async function buildIfNeeded() {
  const built = join(root, 'dist', 'testing.js');
  const sources = ['src', 'adapters'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true }).map((file) => join(root, dir, String(file))),
  );
  if (existsSync(built) && sources.every((file) => statSync(file).mtimeMs <= statSync(built).mtimeMs)) return;
  console.log('Building the package first (dist/ is missing or older than src/); this takes up to a minute…');
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const ticker = setInterval(() => console.log(`  still building (${seconds()} s)…`), 10_000);
  const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  const status = await new Promise((resolve) => {
    const child = spawn(process.execPath, [tsup, '--silent'], { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code));
  });
  clearInterval(ticker);
  if (status !== 0) {
    console.error('The build failed (see above). Run `npm install`, then `npm run build` to see the full error.');
    process.exit(1);
  }
  console.log(`Built in ${seconds()} s.`);
}

// What `npm install` in the example would create for its `file:../..` dependency, without
// installing anything else: express still resolves from the repository's node_modules.
function linkPackageInto(dir) {
  const link = join(dir, 'node_modules', 'webhook-cms-receiver');
  if (existsSync(link) && realpathSync(link) === realpathSync(root)) return;
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  try {
    symlinkSync(join('..', '..', '..'), link, 'junction');
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
}
