import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const WAIT_LIMIT_MS = 5 * 60_000;

/**
 * Makes something at most once per `key` across every test process: the first caller takes a
 * lock directory (mkdir is atomic) and runs `make(dir)`, which fills `dir` and returns a file
 * name in it; the others wait for the marker it leaves. A lock whose owner died is taken over.
 * Entries of other keys older than a day are deleted.
 *
 * @example
 * ```ts
 * const file = await sharedOnce('packs', key, async (dir) => writeTarballInto(dir));
 * ```
 */
export async function sharedOnce(area: string, key: string, make: (dir: string) => Promise<string>): Promise<string> {
  const base = join(tmpdir(), area);
  const dir = join(base, key);
  const marker = join(dir, '.made');
  const lock = join(base, `${key}.lock`);
  await mkdir(base, { recursive: true });
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const done = await readIfExists(marker);
    if (done) return join(dir, done);
    if (await takeLock(lock)) {
      try {
        const again = await readIfExists(marker);
        if (again) return join(dir, again);
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        const name = await make(dir);
        await writeFile(`${marker}.tmp`, name);
        await rename(`${marker}.tmp`, marker);
        await pruneOlderThanADay(base, key);
        return join(dir, name);
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline)
      throw new Error(`Gave up waiting for another test process to finish ${dir}; remove ${lock} if it is stale.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * A short hash of the paths and contents of every file under `entries` (relative to `root`)
 * that `keep` accepts: equal hashes mean equal inputs.
 *
 * @example
 * ```ts
 * const key = await contentHash(root, ['package.json', 'src'], (path) => !path.endsWith('.test.ts'));
 * ```
 */
export async function contentHash(root: string, entries: string[], keep: (path: string) => boolean): Promise<string> {
  const hash = createHash('sha256');
  for (const entry of entries) {
    for (const file of await filesUnder(join(root, entry))) {
      if (keep(file))
        hash
          .update(`${relative(root, file)}\0`)
          .update(await readFile(file))
          .update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Every file under `path` (or `path` itself when it is a file), sorted; none when it is missing.
 *
 * @example
 * ```ts
 * const files = await filesUnder('/repo/src');
 * ```
 */
export async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path)).sort();
  return (await Promise.all(entries.map((entry) => filesUnder(join(path, entry))))).flat();
}

async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    await writeFile(join(lock, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = Number(await readIfExists(join(lock, 'pid')));
  const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
  // No pid yet is normal for a moment after mkdir; for a minute it means the owner died there.
  if ((owner > 0 && !isAlive(owner)) || (!owner && age > 60_000)) await rm(lock, { recursive: true, force: true });
  return false;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function pruneOlderThanADay(base: string, keep: string): Promise<void> {
  const old = Date.now() - 24 * 60 * 60_000;
  for (const entry of await readdir(base)) {
    if (entry === keep || entry.endsWith('.lock')) continue;
    const info = await stat(join(base, entry)).catch(() => undefined);
    if (info && info.mtimeMs < old) await rm(join(base, entry), { recursive: true, force: true });
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  return (await readFile(path, 'utf8').catch(() => undefined))?.trim() || undefined;
}
