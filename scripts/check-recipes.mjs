#!/usr/bin/env node
// `npm run check:recipes`: type-checks every recipe in examples/recipes against the real
// published types of its framework (installed by `npm install --prefix examples/recipes --no-save`), each in
// its own program so one runtime's globals (Bun, Deno) never leak into another's check.
// Modules a framework generates at build time come from that framework's own generator where
// it runs here (SvelteKit's `svelte-kit sync`), else from a reduced copy in recipes/typecheck/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { linkPackageInto } from '../test/runtimes/install.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const recipes = join(root, 'examples', 'recipes');
const modules = join(recipes, 'node_modules');
const tsc = join(modules, 'typescript', 'bin', 'tsc');

if (!existsSync(tsc)) {
  console.error(
    'check:recipes: the frameworks are not installed in examples/recipes.\n' +
      'Run `npm run build && npm install --prefix examples/recipes --no-save` first (about 1 minute, 650 MB).',
  );
  process.exit(1);
}
if (!existsSync(join(root, 'dist', 'index.d.ts'))) {
  console.error('check:recipes: the recipes import the built package: run `npm run build` first.');
  process.exit(1);
}

/** Each recipe: its files, the `types` packages its runtime and framework declare globals in, and what its framework generates. */
const checks = [
  { name: 'SvelteKit +server.ts', files: ['sveltekit/+server.ts'], types: ['node'], generated: svelteKitAmbient },
  { name: 'Astro endpoint', files: ['astro/webhook.ts'], types: ['node', 'astro/client'] },
  { name: 'React Router 7 resource route', files: ['react-router/webhook.ts'], types: ['node'] },
  {
    name: 'TanStack Start server route',
    files: ['tanstack-start/webhook.ts', 'typecheck/tanstack-route-tree.d.ts'],
    types: ['node'],
  },
  { name: 'Elysia on Bun', files: ['elysia/server.ts'], types: ['bun'] },
  { name: 'Azure Functions v4', files: ['azure-functions/webhook.ts'], types: ['node'] },
  { name: 'Next.js route handler', files: ['nextjs/route.ts'], types: ['node'] },
  { name: 'Deno Deploy', files: ['deno-deploy/main.ts'], types: ['deno'] },
  { name: 'Drizzle, transactional Postgres store', files: ['postgres/drizzle.ts'], types: ['node'] },
];

// The recipes import the package by name, as a user's app would: this repository's build.
linkPackageInto(recipes);
const work = mkdtempSync(join(tmpdir(), 'check-recipes-'));
let failed = 0;
try {
  for (const check of checks) {
    const files = [...check.files.map((file) => join(recipes, file)), ...(check.generated?.() ?? [])];
    const args = [
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'preserve',
      '--moduleResolution',
      'bundler',
      '--lib',
      'es2022,dom,dom.iterable',
      '--types',
      check.types.join(','),
      ...files,
    ];
    try {
      execFileSync(process.execPath, [tsc, ...args], { cwd: recipes, encoding: 'utf8', stdio: 'pipe' });
      console.log(`  ✓ ${check.name} (${check.files[0]})`);
    } catch (error) {
      failed++;
      console.error(`  ✗ ${check.name} (${check.files[0]})\n${error.stdout ?? ''}${error.stderr ?? error}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failed > 0) {
  console.error(`\ncheck:recipes: ${failed} recipe(s) do not type-check against their framework's published types`);
  process.exit(1);
}
console.log(`\ncheck:recipes: ${checks.length} recipes type-check against their frameworks' published types`);

/** Runs SvelteKit's own `svelte-kit sync` on an empty app and returns the ambient module declarations it writes. */
function svelteKitAmbient() {
  const app = join(work, 'sveltekit');
  mkdirSync(join(app, 'src', 'routes'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"type":"module"}');
  writeFileSync(join(app, 'svelte.config.js'), 'export default {};');
  writeFileSync(join(app, 'src', 'routes', '+page.svelte'), '');
  symlinkSync(modules, join(app, 'node_modules'), 'dir');
  const cli = join(modules, '@sveltejs', 'kit', 'svelte-kit.js');
  execFileSync(process.execPath, [cli, 'sync'], {
    cwd: app,
    stdio: 'pipe',
    env: { ...process.env, NODE_ENV: 'development' },
  });
  const ambient = join(app, '.svelte-kit', 'ambient.d.ts');
  if (!existsSync(ambient)) throw new Error(`svelte-kit sync wrote no ${relative(work, ambient)}`);
  return [ambient];
}
