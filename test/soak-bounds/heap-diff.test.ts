import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the soak is plain JavaScript, without declarations
import { readOptions } from '../../bench/soak/options.mjs';

// The soak's leak hunt, as BENCHMARKS.md shows it: two heap snapshots of one process, then
// `node bench/soak/heap-diff.mjs A B`. A child process takes them around 5,000 new objects of
// a class of its own, which the diff must name with their count.

const dir = mkdtempSync(join(tmpdir(), 'wcr-heap-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench/soak/heap-diff.mjs', () => {
  it('names what grew between two snapshots, by constructor, with its count', () => {
    const [early, late] = [join(dir, 'early.heapsnapshot'), join(dir, 'late.heapsnapshot')];
    const child = `const { writeHeapSnapshot } = require('node:v8');
      class SoakMarker {}
      writeHeapSnapshot(${JSON.stringify(early)});
      globalThis.kept = Array.from({ length: 5000 }, () => new SoakMarker());
      writeHeapSnapshot(${JSON.stringify(late)});`;
    execFileSync(process.execPath, ['-e', child]);
    const output = execFileSync(process.execPath, ['bench/soak/heap-diff.mjs', early, late], { encoding: 'utf8' });
    expect(output).toMatch(/^heap: [\d.]+ KiB → [\d.]+ KiB/);
    expect(output).toMatch(/\t5000\tobject: SoakMarker\n/);
  }, 30_000);

  it('takes snapshot minutes only inside the run', () => {
    expect(readOptions(['--minutes', '60', '--heap-snapshots', '20,58']).heapSnapshots).toEqual([20, 58]);
    for (const minute of ['0', '60', 'x'])
      expect(() => readOptions(['--minutes', '60', '--heap-snapshots', minute])).toThrow(
        `--heap-snapshots: ${minute} is not a minute of the run`,
      );
  });
});
