// `npm start` builds, then runs this: it checks the token before the server starts, and
// serves the build with `next start` on HOST and PORT.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

if (!process.env.WEBHOOK_TOKEN) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token shown in Profile Settings → CMS Integration and start with:\n  WEBHOOK_TOKEN=<your token> npm start',
  );
  process.exit(1);
}
const host = process.env.HOST ?? '127.0.0.1';
const port = process.env.PORT ?? '3000';
const storage = process.env.DATABASE_URL ? 'Postgres (DATABASE_URL)' : `PGlite in ${process.env.DATA_DIR ?? './data'}`;
console.log(`Webhook endpoint: http://${host}:${port}/webhook (articles in ${storage})`);
const next = createRequire(import.meta.url).resolve('next/dist/bin/next');
const child = spawn(process.execPath, [next, 'start', '--hostname', host, '--port', port], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 1));
