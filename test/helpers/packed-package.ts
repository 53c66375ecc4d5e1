import { execFile } from 'node:child_process';
import { cp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { childEnv } from './child-env.js';
import { contentHash, filesUnder, sharedOnce } from './shared-cache.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** What the build reads, besides what package.json `files` ships (dist/ is what it makes). */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsup.config.ts', 'tsconfig.json', 'src', 'adapters'];

interface Manifest {
  files?: string[];
  scripts?: Record<string, string>;
  exports?: unknown;
  bin?: Record<string, string>;
}

let packing: Promise<string> | undefined;

/**
 * The package as users get it: `npm pack` of a copy of the repository's package files, made
 * at most once per content of the sources (parallel test files, and later runs with the same
 * sources, share one tarball in the system's temp directory). The copy gets the repository's
 * dist/ when that is complete and newer than every source, as right after `npm run build` or
 * `npm test`'s pretest; otherwise the copy has no dist/ and `npm pack` runs the `prepack`
 * build there, as in a fresh clone. The repository's own dist/ is never written.
 *
 * @example
 * ```ts
 * const tarball = await packedPackage(); // <tmp>/webhook-cms-receiver-packs/<hash>/webhook-cms-receiver-0.2.0.tgz
 * ```
 */
export function packedPackage(): Promise<string> {
  packing ??= packOnce();
  return packing;
}

async function packOnce(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
  if (!/\bbuild\b/.test(pkg.scripts?.prepack ?? ''))
    throw new Error('package.json has no "prepack": "npm run build": `npm pack` in a fresh clone would ship no dist/.');
  const inputs = [...BUILD_INPUTS, ...(pkg.files ?? []).filter((entry) => entry !== 'dist')];
  const key = await contentHash(root, inputs, isPackageSource);
  return sharedOnce('webhook-cms-receiver-packs', key, (dir) => pack(pkg, inputs, dir));
}

async function pack(pkg: Manifest, inputs: string[], dir: string): Promise<string> {
  const stage = join(dir, 'stage');
  try {
    for (const entry of inputs) {
      const source = join(root, entry);
      if (await stat(source).catch(() => undefined))
        await cp(source, join(stage, entry), { recursive: true, filter: isPackageSource });
    }
    // The build tools come from the repository; only what is packed comes from the copy.
    await symlink(join(root, 'node_modules'), join(stage, 'node_modules'), 'junction');
    const reused = await copyFreshDist(pkg, inputs, stage);
    const args = ['pack', '--pack-destination', dir, '--loglevel=error', ...(reused ? ['--ignore-scripts'] : [])];
    try {
      await run('npm', args, { cwd: stage, env: childEnv(), maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      const output = `${stdout}${stderr}`.trim().split('\n').slice(-40).join('\n');
      throw new Error(`npm pack failed (its prepack script builds; \`npm run build\` shows the error):\n${output}`);
    }
    const name = (await readdir(dir)).find((file) => file.endsWith('.tgz'));
    if (!name) throw new Error(`npm pack wrote no tarball into ${dir}.`);
    const { stdout: listing } = await run('tar', ['-tzf', join(dir, name)], { maxBuffer: 16 * 1024 * 1024 });
    const missing = distTargets(pkg).filter((file) => !listing.split('\n').includes(`package/${file}`));
    if (missing.length > 0)
      throw new Error(`${name} lacks ${missing.join(', ')}: the prepack build (npm run build) must produce them.`);
    return name;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Copies dist/ into the stage when it is complete and no source is newer; true when it did. */
async function copyFreshDist(pkg: Manifest, inputs: string[], stage: string): Promise<boolean> {
  const before = await distSnapshot();
  if (distTargets(pkg).some((file) => !before.has(file))) return false;
  let newestSource = 0;
  for (const entry of inputs) {
    for (const file of await filesUnder(join(root, entry))) {
      if (isPackageSource(file)) newestSource = Math.max(newestSource, (await stat(file)).mtimeMs);
    }
  }
  if (Math.min(...before.values()) < newestSource) return false;
  await cp(join(root, 'dist'), join(stage, 'dist'), { recursive: true });
  // Someone rebuilding meanwhile could have handed over half a build: then build in the stage.
  const after = await distSnapshot();
  if (after.size === before.size && [...before].every(([file, mtime]) => after.get(file) === mtime)) return true;
  await rm(join(stage, 'dist'), { recursive: true, force: true });
  return false;
}

async function distSnapshot(): Promise<Map<string, number>> {
  const files = await filesUnder(join(root, 'dist'));
  const stats = await Promise.all(files.map((file) => stat(file).catch(() => undefined)));
  return new Map(files.flatMap((file, i) => (stats[i] ? [[relative(root, file), stats[i].mtimeMs] as const] : [])));
}

/** Every dist/ file that package.json `exports` and `bin` point at. */
function distTargets(pkg: Manifest): string[] {
  const targets = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('./dist/') || value.startsWith('dist/')) targets.add(value.replace(/^\.\//, ''));
    } else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  walk(pkg.bin);
  return [...targets].sort();
}

/** Tests are neither built nor shipped: editing one must not force a new pack. */
function isPackageSource(path: string): boolean {
  return !path.endsWith('.test.ts') && !path.split(/[\\/]/).includes('node_modules');
}
