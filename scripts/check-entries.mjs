#!/usr/bin/env node
// Fails when the lists an entry point must appear in disagree. package.json `exports` is the
// reference; each entry must also be in `typesVersions` (node10 type resolution), the tsup build,
// typedoc's entryPoints, the tsconfig paths and vitest aliases (both mapping the name to the
// source tsup builds), a rank of scripts/check-layers.mjs, and the README. scripts/check-package.mjs
// reads `exports` itself, so it agrees by construction as long as it does. Also checks that
// package-lock.json carries package.json's version.
// Usage: node scripts/check-entries.mjs [root]   (root defaults to the repository)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const read = (file) => readFileSync(join(root, file), 'utf8');
const json = (file) => JSON.parse(read(file));
const problems = [];

const pkg = json('package.json');
const NAME = pkg.name;
/** An entry's short name: `.` is the core (`index`, as tsup names it), `./redis` is `redis`. */
const shortName = (key) => (key === '.' ? 'index' : key.slice(2));
const specifier = (name) => (name === 'index' ? NAME : `${NAME}/${name}`);
const names = Object.keys(pkg.exports ?? {})
  .filter((key) => key !== './package.json')
  .map(shortName);

/** Reports names one list has and the other lacks, naming both lists. */
function compare(label, found) {
  const have = new Set(found);
  for (const name of names) if (!have.has(name)) problems.push(`${specifier(name)}: missing from ${label}`);
  for (const name of have)
    if (!names.includes(name)) problems.push(`${specifier(name)}: in ${label} but not in package.json exports`);
}

// package.json typesVersions: every subpath, pointing at its .d.cts.
const typesVersions = pkg.typesVersions?.['*'] ?? {};
compare('package.json typesVersions', ['index', ...Object.keys(typesVersions)]);
for (const [name, [target] = []] of Object.entries(typesVersions)) {
  if (target !== `./dist/${name}.d.cts`)
    problems.push(`${specifier(name)}: typesVersions points at ${target}, expected ./dist/${name}.d.cts`);
}

// tsup.config.ts: the `entry` object of the library build, name → source.
const tsup = read('tsup.config.ts');
const entryBlock = /const library[\s\S]*?entry:\s*\{([\s\S]*?)\}/.exec(tsup)?.[1] ?? '';
const sources = new Map(
  [...entryBlock.matchAll(/^\s*(?:'([^']+)'|([\w-]+)):\s*'([^']+)'/gm)].map((m) => [m[1] ?? m[2], m[3]]),
);
compare('tsup.config.ts (library entry)', sources.keys());
const sourceOf = (name) => sources.get(name);

// typedoc.json: the same sources.
const typedoc = new Set(json('typedoc.json').entryPoints ?? []);
for (const name of names) {
  const source = sourceOf(name);
  if (source && !typedoc.has(source))
    problems.push(`${specifier(name)}: ${source} missing from typedoc.json entryPoints`);
}
const known = new Set(sources.values());
for (const source of typedoc) if (!known.has(source)) problems.push(`typedoc.json: ${source} is no tsup entry`);

// tsconfig.json paths: each specifier to its source.
const paths = json('tsconfig.json').compilerOptions?.paths ?? {};
const pathNames = Object.keys(paths).map((spec) => (spec === NAME ? 'index' : spec.slice(NAME.length + 1)));
compare('tsconfig.json paths', pathNames);
for (const name of names) {
  const mapped = paths[specifier(name)]?.[0]?.replace(/^\.\//, '');
  if (mapped && sourceOf(name) && mapped !== sourceOf(name))
    problems.push(`${specifier(name)}: tsconfig.json paths maps it to ${mapped}, tsup builds ${sourceOf(name)}`);
}

// vitest.config.ts aliases: the first alias that matches the specifier must give tsup's source.
const aliases = [
  ...read('vitest.config.ts').matchAll(/find:\s*\/((?:\\.|[^/\\])+)\/\s*,\s*replacement:\s*here\('([^']+)'\)/g),
].map((m) => ({ find: new RegExp(m[1]), replacement: m[2].replace(/^\.\//, '') }));
for (const name of names) {
  const spec = specifier(name);
  const alias = aliases.find(({ find }) => find.test(spec));
  if (!alias) problems.push(`${spec}: no alias in vitest.config.ts`);
  else if (sourceOf(name) && spec.replace(alias.find, alias.replacement) !== sourceOf(name))
    problems.push(
      `${spec}: vitest.config.ts aliases it to ${spec.replace(alias.find, alias.replacement)}, tsup builds ${sourceOf(name)}`,
    );
}

// scripts/check-layers.mjs: each entry's folder has a rank.
const ranks = [...read('scripts/check-layers.mjs').matchAll(/\[\s*'([^']+)',\s*\d+\s*\]/g)].map((m) => m[1]);
for (const name of names) {
  const source = sourceOf(name);
  if (!source) continue;
  const folder = source === 'src/index.ts' ? source : source.split('/').slice(0, 2).join('/');
  if (!ranks.some((rank) => folder === rank || folder.startsWith(`${rank}/`)))
    problems.push(`${specifier(name)}: its folder ${folder} has no rank in scripts/check-layers.mjs`);
}

// scripts/check-package.mjs: checks whatever `exports` lists, so it only has to keep reading it.
if (!/Object\.keys\(pkg\.exports\)/.test(read('scripts/check-package.mjs')))
  problems.push('scripts/check-package.mjs no longer reads its entries from package.json exports: list them here too');

// README.md: every subpath named, as `webhook-cms-receiver/<name>` or, in its lists, `/<name>`.
const readme = read('README.md');
for (const name of names) {
  if (name === 'index') continue;
  if (!readme.includes(`${NAME}/${name}`) && !readme.includes(`\`/${name}\``))
    problems.push(`${specifier(name)}: README.md never names it (as ${NAME}/${name} or \`/${name}\`)`);
}

// package-lock.json: the root package's version, twice at the top.
const lock = json('package-lock.json');
for (const [where, version] of [
  ['package-lock.json "version"', lock.version],
  ['package-lock.json packages[""].version', lock.packages?.['']?.version],
]) {
  if (version !== pkg.version)
    problems.push(
      `${where} is ${version}, package.json says ${pkg.version}: edit the two version fields at its top to ${pkg.version}`,
    );
}

if (problems.length > 0) {
  console.error(
    `check-entries: ${problems.length} disagreement(s) between the lists of entry points:\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(
  `check-entries: ${names.length} entries agree across exports, typesVersions, tsup, typedoc, tsconfig paths, vitest aliases, layer ranks and the README; package-lock.json is at ${pkg.version}`,
);
