// Runs one bundled Worker in workerd through miniflare and prints its URL, until stdin closes.
// miniflare 4 needs Node 22+, so run.mjs starts this file with the Node 22 binary of the matrix.
import { dirname } from 'node:path';
import { Miniflare } from 'miniflare';

const [scriptPath, compatibilityDate, bindingsJson = '{}', flags = '', durableObjectsJson = '{}'] =
  process.argv.slice(2);
const mf = new Miniflare({
  modules: true,
  scriptPath,
  modulesRoot: dirname(scriptPath),
  compatibilityDate,
  // Empty unless the matrix asks: the point is a Worker WITHOUT nodejs_compat.
  compatibilityFlags: flags ? flags.split(',') : [],
  bindings: JSON.parse(bindingsJson),
  durableObjects: JSON.parse(durableObjectsJson),
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
console.log(JSON.stringify({ url: url.href, workerd: await workerdVersion() }));
process.stdin.resume();
process.stdin.on('end', () => mf.dispose().then(() => process.exit(0)));

async function workerdVersion() {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.resolve('miniflare'));
  return require('workerd/package.json').version;
}
