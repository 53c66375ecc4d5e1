// MUTATION.md, made from the last reports (reports/mutation/<scope>.json, written by
// scripts/mutation-run.mjs) and the reasons in scripts/mutation-reasons.json, so that it can
// say nothing the last run did not measure.
//
//   node scripts/mutation-summary.mjs                  # prints it
//   node scripts/mutation-summary.mjs --write          # writes MUTATION.md
//   node scripts/mutation-summary.mjs --todo           # reason entries to fill, as JSON
//   node scripts/mutation-summary.mjs --check security-core
//       # CI: fails when the scope's score is under its minimum, when a survivor has no
//       # reason, or when the report covers only part of the scope
//
// A reason is keyed by file, mutator and replacement (line numbers move); when one file has
// several survivors with the same mutator and replacement, `line` (the text of the mutant's
// line, trimmed) tells them apart. A survivor no reason matches is listed as unexplained.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCOPES } from './mutation-scopes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const reasons = JSON.parse(readFileSync(join(root, 'scripts/mutation-reasons.json'), 'utf8'));
const KILLED = new Set(['Killed', 'Timeout']);
const empty = () => ({ killed: 0, covered: 0, survived: 0, noCoverage: 0 });

const args = process.argv.slice(2);
const measured = Object.keys(SCOPES)
  .filter((scope) => existsSync(reportPath(scope)))
  .map(summarise);

if (args[0] === '--check') process.exit(check(args.slice(1)));
if (args[0] === '--todo') {
  // Entries to fill in for scripts/mutation-reasons.json, one per unexplained survivor.
  const todo = measured.flatMap((m) => m.survivors.filter((s) => !s.reason));
  const entries = todo.map((s) => ({
    file: s.file,
    mutator: s.mutator,
    replacement: s.replacement,
    line: s.lineText,
    reason: '',
  }));
  console.log(JSON.stringify(entries, null, 2));
  process.exit(0);
}
const text = render();
if (args[0] === '--write') writeFileSync(join(root, 'MUTATION.md'), text);
else process.stdout.write(text);

function reportPath(scope) {
  return join(root, `reports/mutation/${scope}.json`);
}

/** One scope's report: counts by folder and by file, and every survivor with its reason. */
function summarise(scope) {
  const report = JSON.parse(readFileSync(reportPath(scope), 'utf8'));
  const byFolder = new Map();
  const byFile = new Map();
  const survivors = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const folder = file.split('/').slice(0, 2).join('/');
    const lines = source.split('\n');
    at(byFile, file);
    for (const mutant of mutants) {
      for (const counts of [at(byFolder, folder), at(byFile, file)]) {
        if (mutant.status === 'NoCoverage') counts.noCoverage++;
        else if (KILLED.has(mutant.status) || mutant.status === 'Survived') {
          counts.covered++;
          if (KILLED.has(mutant.status)) counts.killed++;
          else counts.survived++;
        }
      }
      if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
      const { start } = mutant.location;
      const lineText = lines[start.line - 1].trim();
      const replacement = mutant.replacement ?? '';
      survivors.push({
        file,
        line: start.line,
        column: start.column,
        mutator: mutant.mutatorName,
        noCoverage: mutant.status === 'NoCoverage',
        change: `\`${clip(lineText)}\` → \`${clip(replacement)}\``,
        lineText,
        replacement,
        ...reasonFor(file, mutant.mutatorName, replacement, lineText),
      });
    }
  }
  survivors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  const total = empty();
  for (const counts of byFolder.values()) for (const key of Object.keys(total)) total[key] += counts[key];
  const timeouts = Object.values(report.files)
    .flatMap((f) => f.mutants)
    .filter((m) => m.status === 'Timeout').length;
  return { scope, ...SCOPES[scope], info: report.measured, total, timeouts, byFolder, byFile, survivors };
}

function reasonFor(file, mutator, replacement, lineText) {
  const candidates = reasons.filter((r) => r.file === file && r.mutator === mutator && r.replacement === replacement);
  const entry =
    candidates.find((r) => r.line !== undefined && r.line === lineText) ?? candidates.find((r) => r.line === undefined);
  return { reason: entry?.reason, entry };
}

function check(args) {
  // --score-only: fail under the minimum score only and list unexplained survivors without
  // failing (a local look at a scope under work); CI checks without it.
  const scoreOnly = args.includes('--score-only');
  const scopes = args.filter((arg) => !arg.startsWith('--'));
  let failed = 0;
  for (const scope of scopes.length ? scopes : Object.keys(SCOPES)) {
    const m = measured.find((s) => s.scope === scope);
    if (!m) {
      console.error(
        `${scope}: no report at reports/mutation/${scope}.json (run node scripts/mutation-run.mjs ${scope})`,
      );
      failed++;
      continue;
    }
    const score = (100 * m.total.killed) / m.total.covered;
    const unexplained = m.survivors.filter((s) => !s.reason);
    console.log(
      `${scope}: ${m.total.killed} of ${m.total.covered} covered mutants killed (${percent(m.total)}), minimum ${m.minimum} %`,
    );
    if (m.info?.partial) {
      console.error(
        m.info.missing
          ? `${scope}: files of the scope not measured yet: ${m.info.missing.join(', ')} (node scripts/mutation-run.mjs ${scope} --refresh <them>)`
          : `${scope}: the report covers only ${m.info.mutate.join(', ')}; run the whole scope`,
      );
      failed++;
    }
    if (!(score >= m.minimum)) {
      console.error(
        `${scope}: the score is under ${m.minimum} %; kill the survivors below or explain the equivalent ones`,
      );
      failed++;
    }
    for (const s of unexplained) {
      console.error(`unexplained survivor: ${s.file}:${s.line}:${s.column} ${s.mutator} ${s.change}`);
    }
    if (unexplained.length) {
      console.error(
        `${scope}: ${unexplained.length} survivor(s) without a reason: kill each with a test, or add its reason to scripts/mutation-reasons.json`,
      );
      if (!scoreOnly) failed++;
    }
    // Reasons for this scope's files that no survivor used: a killed mutant, or a line since changed.
    const used = new Set(m.survivors.map((s) => s.entry));
    const stale = reasons.filter((r) => m.byFile.has(r.file) && !used.has(r));
    for (const r of stale)
      console.log(`unused reason (drop it if the mutant is gone): ${r.file} ${r.mutator} → ${r.replacement}`);
  }
  return failed ? 1 : 0;
}

function render() {
  const out = [
    '# Mutation testing',
    '',
    '<!-- Made by `node scripts/mutation-summary.mjs --write` from reports/mutation/<scope>.json and',
    '     scripts/mutation-reasons.json; edit those, not this file. -->',
    '',
    'The last mutation score of each scope, made from the reports of its last run. How to run it:',
    '[CONTRIBUTING.md](CONTRIBUTING.md#mutation-testing); `node scripts/mutation-run.mjs <scope>` runs a',
    'scope from scratch (StrykerJS, vitest runner, `perTest` coverage, `ignoreStatic`,',
    '`vitest.mutation.config.ts`), runs its timeouts once more on their own, and records the commit',
    'it measured; a scope too slow for one sitting is run in parts (`--mutate`, then `--refresh`',
    'or `--merge`), each file from scratch, and stays "part of the scope only" until every file is',
    'in it. Then `node scripts/mutation-summary.mjs --write` writes this file. CI runs the',
    'security core on every build (`--check security-core`) and fails under its minimum or on a',
    'survivor without a reason: a change to a mutated file that adds a survivor needs a test that',
    'kills it or a reason in scripts/mutation-reasons.json. (`--score-only` fails on the score alone.)',
    '',
    '"Killed" counts timeouts that timed out again when run on their own (a mutant that makes a loop',
    'endless is detected). "Covered" is every mutant at least one test reaches; the score is killed /',
    'covered. Static mutants (module-level code run as a module loads) are skipped by `ignoreStatic`.',
    'The property tests run at 1/100 of their budget with a fixed seed: each mutant killed here is',
    'killed at the full budget too, so the scores are a lower bound for it.',
    '',
    'No mutant is marked equivalent in the code (no `// Stryker disable` comments): each survivor',
    'is listed with its reason, kept in scripts/mutation-reasons.json by file, mutator and',
    'replacement. "Unexplained" marks a survivor without one, which fails `--check`.',
    '',
  ];
  for (const m of measured) out.push(...renderScope(m));
  const missing = Object.keys(SCOPES).filter((scope) => !measured.some((m) => m.scope === scope));
  const previous = existsSync(join(root, 'MUTATION.md')) ? readFileSync(join(root, 'MUTATION.md'), 'utf8') : '';
  for (const scope of missing) {
    const { title, mutate, minimum } = SCOPES[scope];
    const kept = keptSection(previous, scope);
    if (kept) {
      out.push(kept[0], '', keptNote(scope), '', ...kept.slice(1));
      continue;
    }
    out.push(
      `## ${title} (\`${scope}\`)`,
      '',
      `**Not measured in the reports this file was made from**: no report of this scope (an earlier ` +
        'measurement, if any, is in `git log -p MUTATION.md`, and says nothing about the code since). ' +
        `It mutates ${mutate.map((p) => `\`${p}\``).join(', ')} ` +
        `and is to keep ${minimum} %; \`node scripts/mutation-run.mjs ${scope}\` measures it.`,
      '',
    );
  }
  return out.join('\n');
}

function renderScope(m) {
  const info = m.info ?? {};
  const since = info.commit ? changedSince(info.commit, [...m.byFile.keys()], info.refreshed ?? []) : [];
  const lines = [
    `## ${m.title} (\`${m.scope}\`)`,
    '',
    `- **Commit measured**: ${info.commit ? `\`${info.commit.slice(0, 10)}\`` : 'unknown (not run through mutation-run.mjs)'}` +
      (info.uncommitted?.length
        ? `, with uncommitted changes to ${info.uncommitted.length} file(s) under src/ or test/`
        : '') +
      (info.date ? `, ${info.date.slice(0, 16).replace('T', ' ')} UTC` : '') +
      '.',
    `- **Mutated**: ${(info.mutate ?? []).map((p) => `\`${p}\``).join(', ')}${info.partial ? ` (**part of the scope only**${info.missing ? `; not measured yet: ${info.missing.map((f) => `\`${f}\``).join(', ')}` : ''})` : ''}.`,
    `- **Run**: from scratch, ${info.minutes ?? '?'} min at concurrency ${info.concurrency ?? '?'}` +
      (info.load
        ? ` (load average ${info.load.join(' at the start, ')} at the end, on ${info.cpus ?? '?'} cores)`
        : '') +
      '; ' +
      (info.timeoutsRerun?.length
        ? `${info.timeoutsRerun.length} timeout(s) run again on their own: ${tally(info.timeoutsRerun.map((r) => r.status))}` +
          `${info.rerunMinutes ? ` (${info.rerunMinutes} min)` : ''}; the timeouts counted below are those that timed out twice.`
        : m.timeouts
          ? `**${m.timeouts} timeout(s) not run again**: counted as killed, as StrykerJS counts them.`
          : 'no timeouts.'),
    ...latestRefreshes(info.refreshed ?? []).map(
      (r) =>
        `- **Measured from scratch in a later run** (files a partial run left out, or measured again after tests were added; their results replace the first run's): ` +
        `${r.files.map((f) => `\`${f}\``).join(', ')} on \`${r.commit.slice(0, 10)}\`` +
        `${r.uncommitted?.length ? ' with uncommitted changes' : ''}, ${r.date.slice(0, 16).replace('T', ' ')} UTC, ` +
        `${r.minutes} min at concurrency ${r.concurrency} (load average ${r.load.join(' at the start, ')} at the end)` +
        `${r.timeoutsRerun?.length ? `; timeouts run again: ${tally(r.timeoutsRerun.map((t) => t.status))}` : ''}.`,
    ),
    `- **Changed since, in the mutated files**: ${since.length ? since.map((f) => `\`${f}\``).join(', ') : 'none'} (when this file was written).`,
    `- **Score**: ${m.total.killed} of ${m.total.covered} covered mutants killed (**${percent(m.total)}**; minimum ${m.minimum} %), ` +
      `${m.total.noCoverage} not covered.`,
    '',
    table('folder', [...m.byFolder].sort()),
    table('file', [...m.byFile].sort()),
    `### Survivors of \`${m.scope}\``,
    '',
  ];
  if (m.survivors.length === 0) return [...lines, 'None.', ''];
  const unexplained = m.survivors.filter((s) => !s.reason).length;
  lines.push(unexplained ? `**${unexplained} unexplained.**` : 'Each is explained.', '');
  lines.push('| where | mutator | original → mutant | why it survives |', '|---|---|---|---|');
  for (const s of m.survivors) {
    lines.push(
      `| \`${s.file}:${s.line}\` | ${s.mutator}${s.noCoverage ? ' (no coverage)' : ''} | ${s.change} | ${s.reason ? s.reason.replaceAll('|', '\\|') : '**unexplained**'} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Each --refresh with only the files no later one measured again; those left with none dropped. */
function latestRefreshes(refreshed) {
  return refreshed
    .map((r, i) => ({
      ...r,
      files: r.files.filter((f) => !refreshed.slice(i + 1).some((later) => later.files.includes(f))),
    }))
    .filter((r) => r.files.length > 0);
}

/**
 * Mutated files whose content differs between the commit they were measured on (the run's, or
 * a later --refresh's) and the working tree.
 */
function changedSince(commit, files, refreshed) {
  const measuredOn = new Map(files.map((file) => [file, commit]));
  for (const r of refreshed) for (const file of r.files) measuredOn.set(file, r.commit);
  const changed = [];
  for (const at of new Set(measuredOn.values())) {
    const mine = files.filter((file) => measuredOn.get(file) === at);
    const result = spawnSync('git', ['diff', '--name-only', at, '--', ...mine], { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) return ['(the measured commit is not in this clone)'];
    changed.push(...result.stdout.split('\n').filter(Boolean));
  }
  return changed.sort();
}

/** `Killed ×3, Timeout ×2` */
function tally(statuses) {
  const counts = new Map();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} ×${n}`).join(', ');
}

function at(map, key) {
  if (!map.has(key)) map.set(key, empty());
  return map.get(key);
}

function percent({ killed, covered }) {
  return covered === 0 ? 'n/a' : `${((100 * killed) / covered).toFixed(1)} %`;
}

function clip(text) {
  const flat = text.replaceAll('|', '\\|').replaceAll('`', "'").replaceAll('\n', ' ');
  return flat.length > 70 ? `${flat.slice(0, 67)}…` : flat;
}

function table(title, rows) {
  const head = `| ${title} | killed (incl. timeouts) | covered | killed / covered | no coverage | survived |\n|---|---:|---:|---:|---:|---:|`;
  const body = rows.map(
    ([name, c]) => `| \`${name}\` | ${c.killed} | ${c.covered} | ${percent(c)} | ${c.noCoverage} | ${c.survived} |`,
  );
  return `${head}\n${body.join('\n')}\n`;
}

/** Says a section was written from an earlier report: reports are not committed, the file is. */
function keptNote(scope) {
  return (
    `*Kept as written from this scope's last report, which is not on this machine (reports are not committed); ` +
    `its commit and "changed since" are as they were then. \`node scripts/mutation-run.mjs ${scope}\` measures it again.*`
  );
}

/**
 * A measured scope's section of the MUTATION.md being replaced, its lines without the blank
 * line after the heading, or undefined when it has none or only says it was not measured.
 */
function keptSection(text, scope) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('## ') && line.endsWith(`(\`${scope}\`)`));
  if (start < 0) return undefined;
  let end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  if (end < 0) end = lines.length;
  const section = lines.slice(start, end);
  if (!section.some((line) => line.startsWith('- **Commit measured**'))) return undefined;
  // The heading, then the body without the note a kept section already carries.
  const body = section.slice(1).filter((line) => line !== keptNote(scope));
  while (body[0] === '') body.shift();
  while (body.at(-1) === '') body.pop();
  return [section[0], ...body, ''];
}
