// Runs one scope of the mutation run from scratch and leaves its report where
// scripts/mutation-summary.mjs reads it: reports/mutation/<scope>.json, with the commit and
// time it measured. Timeouts are run a second time on their own (a loaded machine makes a slow
// test look like an endless loop); only a mutant that times out again counts as a timeout.
//
//   node scripts/mutation-run.mjs security-core      # CI: then mutation-summary.mjs --check
//   node scripts/mutation-run.mjs dedup-receiver
//   node scripts/mutation-run.mjs security-core --mutate src/crypto/hex.ts   # part of a scope
//   node scripts/mutation-run.mjs security-core --refresh src/crypto/hex.ts
//       # those whole files from scratch again, their results put into the scope's last
//       # report (after tests were added: a test added elsewhere only kills more, never fewer)
//   node scripts/mutation-run.mjs publish --merge elsewhere/publish-part.json
//       # a --mutate run made in another checkout, put into the scope's report the same way
//
// A scope too slow to run whole on a loaded machine is measured in parts: a --mutate run,
// then --refresh (or --merge) with the other files. Each file is still run from scratch, and
// the report records the commit each part measured; it stays partial (and --check fails)
// until every file of the scope is in it.
//
// STRYKER_CONCURRENCY sets the test runners (2 by default, for a 2-core machine).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { SCOPES } from './mutation-scopes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [scope, ...rest] = process.argv.slice(2);
if (!scope || !SCOPES[scope]) {
  console.error(`usage: node scripts/mutation-run.mjs <${Object.keys(SCOPES).join('|')}> [--mutate a.ts,b.ts]`);
  process.exit(2);
}
const only = rest[0] === '--mutate' || rest[0] === '--refresh' ? rest[1]?.split(',') : undefined;
const refresh = rest[0] === '--refresh';
if (refresh && (!only?.length || only.some((file) => !existsSync(join(root, file))))) {
  console.error('--refresh takes whole files of the scope, comma-separated: src/a.ts,src/b.ts');
  process.exit(2);
}
// --rerun-timeouts: only the second step, over the scope's existing report (a first run cut short).
const rerunOnly = rest[0] === '--rerun-timeouts';
const mutate = only ?? SCOPES[scope].mutate;

const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
const commit = git('rev-parse', 'HEAD');
const changed = git('status', '--porcelain', '--', 'src', 'test').split('\n').filter(Boolean);
const started = Date.now();
const loadAtStart = loadavg()[0];

if (rest[0] === '--merge') {
  if (!rest[1] || !existsSync(rest[1])) {
    console.error('--merge takes the path of a report written by a --mutate run of this scope');
    process.exit(2);
  }
  const part = JSON.parse(readFileSync(rest[1], 'utf8'));
  if (part.measured?.scope !== scope) {
    console.error(`${rest[1]} measured ${part.measured?.scope ?? 'no scope'}, not ${scope}`);
    process.exit(2);
  }
  mergeInto(scope, { report: part }, part.measured);
  process.exit(0);
}

const first = rerunOnly ? read(scope) : stryker(refresh ? `${scope}-refresh` : scope, mutate);
const timeouts = first.mutants.filter(({ mutant }) => mutant.status === 'Timeout');
let rerun = [];
if (timeouts.length > 0) {
  console.log(`\n${timeouts.length} timeout(s): running them once more on their own\n`);
  const ranges = timeouts.map(({ file, mutant: { location: l } }) => {
    // The report's columns count from 1, a --mutate range's from 0.
    return `${file}:${l.start.line}:${l.start.column - 1}-${l.end.line}:${l.end.column - 1}`;
  });
  const second = stryker(`${scope}-timeouts`, [...new Set(ranges)]);
  rerun = timeouts.map(({ file, mutant }) => {
    const again = second.mutants.find(({ file: f, mutant: m }) => f === file && sameMutant(m, mutant));
    if (again) Object.assign(mutant, { status: again.mutant.status, statusReason: again.mutant.statusReason });
    return { file, id: mutant.id, status: again?.mutant.status ?? 'Timeout' };
  });
  rmSync(join(root, `reports/mutation/${scope}-timeouts.json`), { force: true });
  rmSync(join(root, `reports/mutation/${scope}-timeouts.html`), { force: true });
}

if (refresh) {
  mergeInto(scope, first, { mutate, ...thisRun() });
  rmSync(first.path, { force: true });
  rmSync(first.path.replace(/\.json$/, '.html'), { force: true });
  process.exit(0);
}

first.report.measured = rerunOnly
  ? {
      ...first.report.measured,
      timeoutsRerun: rerun,
      rerunMinutes: Math.round((Date.now() - started) / 6000) / 10,
    }
  : { scope, mutate, partial: only !== undefined, cpus: cpus().length, ...thisRun() };
writeFileSync(first.path, JSON.stringify(first.report));
console.log(
  `\n${scope}: measured on ${commit.slice(0, 7)}${changed.length ? ' with uncommitted changes' : ''} in ${first.report.measured.minutes} min` +
    (rerun.length ? `; timeouts run again: ${rerun.map((r) => r.status).join(', ')}` : ''),
);

/** What this run measured on, how long it took and under what load: recorded with its results. */
function thisRun() {
  return {
    commit,
    uncommitted: changed,
    date: new Date(started).toISOString(),
    minutes: Math.round((Date.now() - started) / 6000) / 10,
    concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
    // One-minute load averages at the start and the end: the time means little without them.
    load: [loadAtStart, loadavg()[0]].map((l) => Math.round(l * 10) / 10),
    timeoutsRerun: rerun,
  };
}

/**
 * Puts a part's files (a --refresh run, or a --merge report) into the scope's last report and
 * records which files were measured, on which commit (mutation-summary.mjs lists them and
 * checks those files against that commit). A whole report takes only files it has; a partial
 * one also takes the scope's other files, and becomes whole once it has them all.
 */
function mergeInto(name, part, run) {
  const full = read(name);
  const partial = full.report.measured?.partial === true;
  const inScope = scopeFiles(name);
  const files = Object.keys(part.report.files);
  for (const file of files) {
    if (partial ? !inScope.includes(file) : !full.report.files[file]) {
      console.error(`${file} is not in ${partial ? 'the scope' : "the scope's last report: run the whole scope"}`);
      process.exit(1);
    }
    full.report.files[file] = part.report.files[file];
  }
  const measured = full.report.measured ?? {};
  measured.refreshed = [
    // An earlier refresh keeps only the files not measured again now.
    ...(measured.refreshed ?? [])
      .map((r) => ({ ...r, files: r.files.filter((f) => !files.includes(f)) }))
      .filter((r) => r.files.length > 0),
    {
      files,
      // What the part was asked to mutate: a file named there with no mutants is measured too.
      mutate: run.mutate ?? [],
      commit: run.commit,
      uncommitted: run.uncommitted ?? [],
      date: run.date,
      minutes: run.minutes,
      concurrency: run.concurrency,
      load: run.load,
      timeoutsRerun: run.timeoutsRerun ?? [],
    },
  ];
  const named = new Set([...(measured.mutate ?? []), ...measured.refreshed.flatMap((r) => r.mutate)]);
  const missing = inScope.filter((file) => !full.report.files[file] && !named.has(file) && hasRuntimeCode(file));
  if (partial && missing.length === 0) {
    measured.partial = false;
    measured.mutate = SCOPES[name].mutate;
  }
  if (measured.partial) measured.missing = missing;
  else delete measured.missing;
  full.report.measured = measured;
  writeFileSync(full.path, JSON.stringify(full.report));
  console.log(
    `\n${name}: ${files.length} file(s) measured on ${run.commit.slice(0, 7)} and put into its report` +
      (measured.partial ? `; still missing: ${missing.join(', ')}` : ''),
  );
}

/**
 * Whether a file compiles to any JavaScript. Stryker leaves files of types alone (no mutants,
 * so no entry in its report); a partial report needs no part for them.
 */
function hasRuntimeCode(file) {
  const { outputText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, removeComments: true },
  });
  return outputText.replace(/export \{\};?/g, '').trim() !== '';
}

/** The files a scope's patterns select (`**`, `*` and `!` are all its patterns use). */
function scopeFiles(name) {
  const toRegExp = (glob) =>
    new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('**/', '\u0000')
        .replaceAll('*', '[^/]*')
        .replaceAll('\u0000', '(?:.*/)?')}$`,
    );
  const patterns = SCOPES[name].mutate;
  const include = patterns.filter((p) => !p.startsWith('!')).map(toRegExp);
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => toRegExp(p.slice(1)));
  return git('ls-files', 'src')
    .split('\n')
    .filter((file) => include.some((re) => re.test(file)) && !exclude.some((re) => re.test(file)));
}

/** Runs Stryker fresh over `patterns` into reports/mutation/<name>.json and reads the report. */
function stryker(name, patterns) {
  const result = spawnSync('npx', ['stryker', 'run', '--mutate', patterns.join(',')], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_REPORT: name, MUTATION_FRESH: '1' },
  });
  if (result.status !== 0) {
    console.error(`stryker exited with ${result.status ?? result.signal}`);
    process.exit(1);
  }
  return read(name);
}

function read(name) {
  const path = join(root, `reports/mutation/${name}.json`);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const mutants = Object.entries(report.files).flatMap(([file, { mutants }]) =>
    mutants.map((mutant) => ({ file, mutant })),
  );
  return { path, report, mutants };
}

function sameMutant(a, b) {
  return (
    a.mutatorName === b.mutatorName &&
    a.replacement === b.replacement &&
    JSON.stringify(a.location) === JSON.stringify(b.location)
  );
}
