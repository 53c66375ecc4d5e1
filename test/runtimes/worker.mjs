import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { linkPackageInto, rootDir, runtimesDir } from './install.mjs';
import { startProcess } from './processes.mjs';
import { node22 } from './runtimes.mjs';

const starterDir = join(rootDir, 'examples', 'cloudflare-worker');

/**
 * Copies examples/cloudflare-worker out of the repository, as a user copies it (without
 * node_modules and what its .gitignore names), and links the BUILT package into the copy's
 * node_modules: a copy that imported anything from the repository would not bundle.
 *
 * @example
 * ```js
 * const starter = copyStarterOut();
 * const { main } = readWranglerConfig(starter.dir);
 * starter.remove();
 * ```
 */
export function copyStarterOut() {
  const ignored = [
    'node_modules',
    ...readFileSync(join(starterDir, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/^\/|\/$/g, ''))
      .filter((line) => line !== '' && !line.startsWith('#')),
  ];
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'starter-cloudflare-worker-')));
  const remove = () => rmSync(base, { recursive: true, force: true });
  try {
    const outside = relative(realpathSync(rootDir), base);
    if (!outside.startsWith('..') && !isAbsolute(outside))
      throw new Error(`the temporary folder ${base} is inside the repository; set TMPDIR to a folder outside it`);
    const dir = join(base, 'cloudflare-worker');
    cpSync(starterDir, dir, {
      recursive: true,
      filter: (path) =>
        !relative(starterDir, path)
          .split(sep)
          .some((part) => ignored.includes(part)),
    });
    linkPackageInto(dir);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Reads the example's wrangler.toml (in the repository, or in the copy `dir`) and refuses any
 * config that would turn nodejs_compat on: the matrix exists to prove a Worker without it.
 * Its Durable Object bindings, R2 buckets and queues come back as miniflare's options.
 *
 * @example
 * ```js
 * const { compatibilityDate } = readWranglerConfig();
 * ```
 */
export function readWranglerConfig(dir = starterDir) {
  const wranglerToml = join(dir, 'wrangler.toml');
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
    main: join(dir, main),
    durableObjects: durableObjectsOf(settings, wranglerToml),
    r2Buckets: Object.fromEntries(
      tableArray(settings, 'r2_buckets').map((entry) => [entry.binding, entry.bucket_name]),
    ),
    ...queuesOf(settings, wranglerToml),
  };
}

/**
 * The `[[queues.producers]]` and `[[queues.consumers]]` of a wrangler.toml as miniflare's
 * `queueProducers` (binding → queue) and `queueConsumers` (queue → `maxRetries`,
 * `deadLetterQueue`, `maxBatchSize`; `maxBatchTimeout` is the caller's, to keep tests fast).
 */
function queuesOf(settings, wranglerToml) {
  const queueProducers = {};
  for (const entry of tableArray(settings, 'queues.producers')) {
    if (!entry.binding || !entry.queue)
      throw new Error(`${wranglerToml}: a [[queues.producers]] needs binding and queue`);
    queueProducers[entry.binding] = { queueName: entry.queue };
  }
  const queueConsumers = {};
  for (const entry of tableArray(settings, 'queues.consumers')) {
    if (!entry.queue) throw new Error(`${wranglerToml}: a [[queues.consumers]] needs queue`);
    queueConsumers[entry.queue] = {
      ...(entry.max_retries === undefined ? {} : { maxRetries: Number(entry.max_retries) }),
      ...(entry.dead_letter_queue === undefined ? {} : { deadLetterQueue: entry.dead_letter_queue }),
      ...(entry.max_batch_size === undefined ? {} : { maxBatchSize: Number(entry.max_batch_size) }),
    };
  }
  return { queueProducers, queueConsumers };
}

/** Each `[[name]]` table of the (comment-free) settings, as key → value (quotes taken off strings). */
function tableArray(settings, name) {
  const header = new RegExp(`^\\[\\[${name.replace('.', '\\.')}\\]\\]\\n((?:[a-z_]+\\s*=.*\\n?)+)`, 'gm');
  return [...settings.matchAll(header)].map(([, block]) =>
    Object.fromEntries(
      [...block.matchAll(/^([a-z_]+)\s*=\s*(.+?)\s*$/gm)].map(([, key, value]) => [
        key,
        value.replace(/^"(.*)"$/, '$1'),
      ]),
    ),
  );
}

/**
 * The `[[durable_objects.bindings]]` of a wrangler.toml as miniflare's `durableObjects`
 * option: binding name → class, on the SQLite backend when a migration lists the class in
 * `new_sqlite_classes`.
 */
function durableObjectsOf(settings, wranglerToml) {
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
 * `compatibilityFlags` say so), and resolves to its URL, workerd's version, `output()` (what
 * the host printed so far: the Worker's console.log lines among it) and a `stop()`.
 * `queueProducers` and `queueConsumers` are miniflare's options; `tap` adds a second Worker
 * under `/__tap/` (worker-host.mjs) that sends raw messages to queues and reads others.
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
  {
    compatibilityDate,
    bindings = {},
    compatibilityFlags = [],
    durableObjects = {},
    queueProducers,
    queueConsumers,
    r2Buckets,
    tap,
  },
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
      JSON.stringify({ queueProducers, queueConsumers, r2Buckets, tap }),
    ],
    {
      cwd: runtimesDir,
      ready: /^(\{"url".*\})$/m,
    },
  );
  const { url, workerd } = JSON.parse(host.match[1]);
  return { url, workerd, output: host.output, stop: host.stop };
}
