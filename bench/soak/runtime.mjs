// A private copy of the built package for the soak's processes. dist/ is shared: a rebuild while
// the soak runs (tsup empties the folder first) would make a restarted receiver fail to start,
// or a lazily loaded chunk fail mid-run, which is the checkout's churn, not the receiver's fault.
// So the child scripts run from a temp folder whose node_modules holds a copy of dist/ as
// `webhook-cms-receiver` and links to every other installed package; the copy is checked whole
// (every relative import of every file resolves) before it is used.

import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
const CHILD_FILES = ['receiver.mjs', 'worker.mjs', 'credentials.mjs', 'probe.mjs', 'queues.mjs', 'stores.mjs'];
const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Every relative import of every .js file in `dist` names a file that exists. */
function whole(dist) {
  if (!existsSync(join(dist, 'index.js'))) return false;
  for (const file of readdirSync(dist).filter((name) => name.endsWith('.js'))) {
    const text = readFileSync(join(dist, file), 'utf8');
    for (const [, target] of text.matchAll(/(?:from\s*|import\s*\(\s*)["'](\.\/[^"']+)["']/g)) {
      if (!existsSync(join(dirname(join(dist, file)), target))) return false;
    }
  }
  return true;
}

/** `{ script(kind), entry(subpath), remove() }` over a fresh copy of dist/. */
export function snapshotRuntime() {
  const dir = mkdtempSync(join(tmpdir(), 'wcr-soak-runtime-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '.bin' || name === 'webhook-cms-receiver') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  const pkg = join(modules, 'webhook-cms-receiver');
  mkdirSync(pkg);
  copyFileSync(join(root, 'package.json'), join(pkg, 'package.json'));
  for (let attempt = 1; ; attempt++) {
    rmSync(join(pkg, 'dist'), { recursive: true, force: true });
    try {
      cpSync(join(root, 'dist'), join(pkg, 'dist'), { recursive: true });
      if (whole(join(pkg, 'dist'))) break;
    } catch {}
    if (attempt === 30)
      throw new Error('dist/ stayed incomplete for a minute (a build under way?): run `npx tsup --silent`');
    sleepSync(2_000);
  }
  mkdirSync(join(dir, 'soak'));
  for (const file of CHILD_FILES) copyFileSync(join(here, file), join(dir, 'soak', file));
  return {
    script: (kind) => join(dir, 'soak', `${kind}.mjs`),
    entry: (subpath) => join(pkg, 'dist', `${subpath}.js`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
