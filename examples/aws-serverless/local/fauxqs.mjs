// fauxqs (an SQS and S3 emulator from npm) on 127.0.0.1 at the port given as the first
// argument; prints `listening <url>`. Queue URLs name 127.0.0.1 rather than fauxqs's default
// sqs.<region>.localhost, which the system resolver may not know. fauxqs imports node:sqlite
// (Node 22.5+) for persistence, unused here: an older Node gets a stub, and keeps all in memory.
import { register } from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 5)) {
  const stub =
    'export class DatabaseSync { constructor() { throw new Error("fauxqs persistence needs Node 22.5+"); } }';
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === 'node:sqlite') return { url: 'data:text/javascript,${encodeURIComponent(stub)}', shortCircuit: true };
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
const { buildApp } = await import('fauxqs');
const { SqsStore } = await import(new URL('sqs/sqsStore.js', import.meta.resolve('fauxqs')).href);
const sqsStore = new SqsStore();
sqsStore.host = '';
const app = buildApp({ logger: false, stores: { sqsStore } });
const url = await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${url}\n`);
