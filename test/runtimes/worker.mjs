import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootDir, runtimesDir } from './install.mjs';
import { startProcess } from './processes.mjs';
import { node22 } from './runtimes.mjs';

const wranglerToml = join(rootDir, 'examples', 'cloudflare-worker', 'wrangler.toml');

/**
 * Reads the example's wrangler.toml and refuses any config that would turn nodejs_compat on:
 * the matrix exists to prove a Worker without it.
 *
 * @example
 * ```js
 * const { compatibilityDate } = readWranglerConfig();
 * ```
 */
export function readWranglerConfig() {
  const settings = readFileSync(wranglerToml, 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const date = settings.match(/^compatibility_date\s*=\s*"(\d{4}-\d{2}-\d{2})"/m)?.[1];
  const main = settings.match(/^main\s*=\s*"([^"]+)"/m)?.[1];
  if (!date || !main) throw new Error(`${wranglerToml} needs main and compatibility_date`);
  if (/nodejs_compat|compatibility_flags/.test(settings))
    throw new Error(`${wranglerToml} sets compatibility flags; the example must run without nodejs_compat`);
  return {
    compatibilityDate: date,
    main: join(rootDir, 'examples', 'cloudflare-worker', main),
    durableObjects: durableObjectsOf(settings),
  };
}

/**
 * The `[[durable_objects.bindings]]` of a wrangler.toml as miniflare's `durableObjects`
 * option: binding name → class, on the SQLite backend when a migration lists the class in
 * `new_sqlite_classes`.
 */
function durableObjectsOf(settings) {
  const sqlite = [...settings.matchAll(/^new_sqlite_classes\s*=\s*\[([^\]]*)\]/gm)].flatMap(([, list]) =>
    [...list.matchAll(/"([^"]+)"/g)].map(([, name]) => name),
  );
  const durableObjects = {};
  for (const [, block] of settings.matchAll(/^\[\[durable_objects\.bindings\]\]\n((?:[a-z_]+\s*=.*\n?)+)/gm)) {
    const name = block.match(/^name\s*=\s*"([^"]+)"/m)?.[1];
    const className = block.match(/^class_name\s*=\s*"([^"]+)"/m)?.[1];
    if (!name || !className)
      throw new Error(`${wranglerToml}: a [[durable_objects.bindings]] needs name and class_name`);
    durableObjects[name] = { className, useSQLite: sqlite.includes(className) };
  }
  return durableObjects;
}

/**
 * Bundles a Worker module as wrangler would (esbuild, `workerd`/`worker`/`browser` conditions,
 * no Node built-ins), loads it into workerd through miniflare (without nodejs_compat unless
 * `compatibilityFlags` say so), and resolves to its URL, workerd's version and a `stop()`.
 *
 * @example
 * ```js
 * const worker = await hostWorker('vectors', join(runtimesDir, 'worker-vectors.mjs'), { compatibilityDate });
 * const report = await (await fetch(worker.url)).json();
 * await worker.stop();
 * ```
 */
export async function hostWorker(
  name,
  entry,
  { compatibilityDate, bindings = {}, compatibilityFlags = [], durableObjects = {} },
) {
  const { build } = await import('esbuild');
  const outfile = join(runtimesDir, 'node_modules', '.cache', 'workers', name, 'worker.js');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    logLevel: 'warning',
  });
  const bundled = readFileSync(outfile, 'utf8');
  if (/\bfrom\s*["']node:|\bimport\(\s*["']node:|\brequire\(\s*["']node:/.test(bundled))
    throw new Error(
      `${name}: the Worker bundle imports a node: module, which a Worker without nodejs_compat cannot load`,
    );
  const host = await startProcess(
    node22,
    [
      'worker-host.mjs',
      outfile,
      compatibilityDate,
      JSON.stringify(bindings),
      compatibilityFlags.join(','),
      JSON.stringify(durableObjects),
    ],
    {
      cwd: runtimesDir,
      ready: /^(\{"url".*\})$/m,
    },
  );
  const { url, workerd } = JSON.parse(host.match[1]);
  return { url, workerd, stop: host.stop };
}
