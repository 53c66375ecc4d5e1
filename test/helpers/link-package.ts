import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Makes `webhook-cms-receiver` resolvable from an example folder the way `npm install` there
 * would (its `file:../..` dependency becomes a symlink to the repository), without installing
 * anything: everything else resolves from the repository's own node_modules. The link is
 * gitignored (`examples/*\/node_modules/`) and points at the built package, so run
 * `npm run build` first.
 *
 * @example
 * ```ts
 * const dir = await linkPackageInto('examples/express-publisher');
 * spawn(process.execPath, ['server.mjs'], { cwd: dir });
 * ```
 */
export async function linkPackageInto(example: string): Promise<string> {
  const dir = resolve(root, example);
  const link = join(dir, 'node_modules', 'webhook-cms-receiver');
  const target = relative(join(dir, 'node_modules'), root);
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  try {
    await symlink(target, link, 'junction');
  } catch (error) {
    // Another test file (or `npm install` in the example) may have made it already; a link
    // to anything but this repository is a real problem.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || (await realpath(link)) !== (await realpath(root)))
      throw error;
  }
  return dir;
}
