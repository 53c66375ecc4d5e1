// Prints the last mutation run (reports/mutation/mutation.json) as the tables MUTATION.md keeps:
// the score by folder and by file, and every survivor with its place, so that each can be
// killed or given its reason there. `node scripts/mutation-summary.mjs` after
// `npm run test:mutation`.

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const report = JSON.parse(readFileSync(join(root, 'reports/mutation/mutation.json'), 'utf8'));

const KILLED = new Set(['Killed', 'Timeout']);
const empty = () => ({ killed: 0, covered: 0, survived: 0, noCoverage: 0 });
const byFolder = new Map();
const byFile = new Map();
const survivors = [];

for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const folder = file.split('/').slice(0, 2).join('/');
  const lines = source.split('\n');
  for (const mutant of mutants) {
    for (const counts of [at(byFolder, folder), at(byFile, file)]) {
      if (mutant.status === 'NoCoverage') counts.noCoverage++;
      else if (KILLED.has(mutant.status) || mutant.status === 'Survived') {
        counts.covered++;
        if (KILLED.has(mutant.status)) counts.killed++;
        else counts.survived++;
      }
    }
    if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') {
      const line = mutant.location.start.line;
      survivors.push({
        where: `\`${file}:${line}\``,
        mutator: mutant.mutatorName + (mutant.status === 'NoCoverage' ? ' (no coverage)' : ''),
        change: `\`${clip(lines[line - 1].trim())}\` → \`${clip(mutant.replacement ?? '')}\``,
      });
    }
  }
}

const total = empty();
for (const counts of byFolder.values()) for (const key of Object.keys(total)) total[key] += counts[key];
console.log(`All: ${total.killed} of ${total.covered} covered mutants killed (${percent(total)})\n`);
console.log(table('folder', [['all of it', total], ...[...byFolder].sort()]));
console.log(table('file', [...byFile].sort()));
console.log('| where | mutator | original → mutant | why it survives |\n|---|---|---|---|');
for (const { where, mutator, change } of survivors) console.log(`| ${where} | ${mutator} | ${change} |  |`);

function at(map, key) {
  if (!map.has(key)) map.set(key, empty());
  return map.get(key);
}

function percent({ killed, covered }) {
  return covered === 0 ? 'n/a' : `${((100 * killed) / covered).toFixed(1)} %`;
}

function clip(text) {
  const flat = text.replaceAll('|', '\\|').replaceAll('`', "'");
  return flat.length > 70 ? `${flat.slice(0, 67)}…` : flat;
}

function table(title, rows) {
  const head = `| ${title} | killed (incl. timeouts) | covered | killed / covered | no coverage | survived |\n|---|---:|---:|---:|---:|---:|`;
  const body = rows.map(
    ([name, c]) =>
      `| ${name.includes('/') ? `\`${name}\`` : name} | ${c.killed} | ${c.covered} | ${percent(c)} | ${c.noCoverage} | ${c.survived} |`,
  );
  return `${head}\n${body.join('\n')}\n`;
}
