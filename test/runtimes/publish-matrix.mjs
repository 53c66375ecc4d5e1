// The `/publish` rows of `npm run test:runtimes`: the sanitizer (hast peers loaded on first
// use), the Web Crypto content hash and the slug answers of the BUILT package on every runtime
// of the matrix, workerd without nodejs_compat included. run.mjs calls publishOn for each
// runtime; `node test/runtimes/publish-matrix.mjs` runs these rows alone.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntimesInstalled, linkPackageInto, runtimesDir } from './install.mjs';
import { runToEnd } from './processes.mjs';
import { judge, runtimes } from './runtimes.mjs';
import { hostWorker, readWranglerConfig } from './worker.mjs';

/**
 * Runs publish-checks.mjs on one runtime of the matrix (a process, or a Worker in workerd) and
 * returns its report with the matrix's own judgement (right runtime, version, crypto path).
 *
 * @example
 * ```js
 * for (const entry of runtimes) rows.push(print(await attempt(entry.label, () => publishOn(entry))));
 * ```
 */
export async function publishOn(entry) {
  const report = entry.worker ? await inWorker(entry) : await inProcess(entry);
  const failures = judge(entry, report);
  return { ...report, failed: failures.length, failures };
}

async function inProcess(entry) {
  const args = entry.args.map((arg) => (arg === 'main.mjs' ? 'publish-main.mjs' : arg));
  const { code, stdout, stderr } = await runToEnd(entry.command, args, { cwd: runtimesDir });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{'))
    throw new Error(`exited ${code}: ${stderr.trim() || stdout.trim() || 'no output'}`);
  return JSON.parse(line);
}

async function inWorker(entry) {
  const worker = await hostWorker(`publish${entry.flags ? '-compat' : ''}`, join(runtimesDir, 'worker-publish.mjs'), {
    compatibilityDate: readWranglerConfig().compatibilityDate,
    compatibilityFlags: entry.flags,
  });
  try {
    const report = await (await fetch(worker.url, { signal: AbortSignal.timeout(60_000) })).json();
    return { ...report, version: worker.workerd };
  } finally {
    await worker.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureRuntimesInstalled();
  linkPackageInto(runtimesDir);
  let failed = 0;
  for (const entry of runtimes) {
    const row = await publishOn(entry).catch((error) => ({
      passed: 0,
      failed: 1,
      failures: [String(error?.message ?? error)],
    }));
    failed += row.failed;
    console.log(
      `  ${row.failed === 0 ? 'ok  ' : 'FAIL'} ${entry.label.padEnd(38)} ${(row.version ?? '').padEnd(14)} ${row.passed} passed, ${row.failed} failed`,
    );
    for (const failure of row.failures) console.log(`         - ${failure}`);
  }
  process.exitCode = failed > 0 ? 1 : 0;
}
