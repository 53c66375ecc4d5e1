#!/usr/bin/env node
// Is every optional peer current? For each peer dependency: its newest version on the npm
// registry (`npm view <peer> version`), its peer range, and the versions the tests run
// (devDependencies, by name or through an `npm:<peer>@<version>` alias). Exit 1 when a peer's
// newest version is outside its range: a new major to test, then to add to the range. A
// registry that does not answer in time is a line of the report, never a failure.
// Usage: node scripts/check-currency.mjs [--timeout-ms 15000]
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const flag = process.argv.indexOf('--timeout-ms');
const timeoutMs = flag > 0 ? Number(process.argv[flag + 1]) : 15_000;

/** The versions of `peer` the tests install: its own devDependency and every alias of it. */
function testedVersions(peer) {
  const versions = [];
  for (const [name, spec] of Object.entries(pkg.devDependencies ?? {})) {
    if (name === peer) versions.push(spec);
    const alias = /^npm:(@?[^@]+)@(.+)$/.exec(spec);
    if (alias && alias[1] === peer) versions.push(`${alias[2]} (${name})`);
  }
  return versions;
}

/** `npm view <peer> version`, or an error saying why there is no answer. */
function newest(peer) {
  return new Promise((resolve) => {
    execFile('npm', ['view', peer, 'version', '--silent'], { timeout: timeoutMs }, (error, stdout) => {
      const version = stdout.trim().split('\n').pop();
      if (error || !/^\d+\.\d+\.\d+/.test(version ?? ''))
        resolve({
          error: error?.killed ? `no answer within ${timeoutMs} ms` : (error?.message.split('\n')[0] ?? 'no version'),
        });
      else resolve({ version });
    });
  });
}

const parse = (version) => version.split(/[.+-]/).slice(0, 3).map(Number);
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether `version` satisfies `range`: the forms peer ranges use here, `^x.y.z`, `>=x.y.z`,
 * `x.y.z` and `*`, joined with `||` (npm's caret: the same major, or for 0.x the same minor).
 */
function satisfies(version, range) {
  const v = parse(version);
  return range.split('||').some((part) => {
    const alternative = part.trim();
    if (alternative === '*' || alternative === '') return true;
    const match = /^(\^|>=)?\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(alternative);
    if (!match) return false;
    const low = [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)];
    if (match[1] === '>=') return compare(v, low) >= 0;
    if (match[1] === '^') {
      if (compare(v, low) < 0) return false;
      return low[0] > 0 ? v[0] === low[0] : v[0] === 0 && v[1] === low[1];
    }
    return compare(v, low) === 0;
  });
}

const peers = Object.entries(pkg.peerDependencies ?? {});
// A few at a time: sixteen npm processes at once starve each other on a small machine.
const rows = new Array(peers.length);
let next = 0;
const lookUp = async () => {
  while (next < peers.length) {
    const index = next++;
    const [peer, range] = peers[index];
    rows[index] = { peer, range, tested: testedVersions(peer), ...(await newest(peer)) };
  }
};
await Promise.all(Array.from({ length: 4 }, lookUp));

let behind = 0;
let unreachable = 0;
const width = Math.max(...rows.map((row) => row.peer.length));
console.log(`${'peer'.padEnd(width)}  ${'newest'.padEnd(10)}  range  ·  tested`);
for (const row of rows) {
  const tested = row.tested.length > 0 ? row.tested.join(', ') : 'not tested';
  if (row.error) {
    unreachable++;
    console.log(
      `${row.peer.padEnd(width)}  ${'?'.padEnd(10)}  ${row.range}  ·  ${tested}  (registry unreachable: ${row.error})`,
    );
    continue;
  }
  const inside = satisfies(row.version, row.range);
  if (!inside) behind++;
  const mark = inside
    ? ''
    : `  OUTSIDE THE RANGE: test ${row.peer} ${parse(row.version)[0]}, then add ^${parse(row.version)[0]}.0.0`;
  console.log(`${row.peer.padEnd(width)}  ${row.version.padEnd(10)}  ${row.range}  ·  ${tested}${mark}`);
}
if (unreachable > 0)
  console.log(
    `\nregistry unreachable for ${unreachable} of ${rows.length} peers: their newest versions are unknown, not failed`,
  );
if (behind > 0) {
  console.log(`\n${behind} peer(s) have a newest version outside their peer range`);
  process.exitCode = 1;
} else if (unreachable < rows.length) console.log('\nevery peer answered is inside its range');
