import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// `/publish` imports its optional peers (the hast packages) on first use of the sanitizer. A
// project that uses `/publish` without them could not be bundled: esbuild (wrangler, Vite,
// tsup) and webpack (Next.js) failed the build on the unresolved import(), though the
// sanitizer was never called. The BUILT package, copied outside the repository so no
// node_modules above it holds the hast packages, is bundled as a Worker would be.

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wcr-publish-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a bundle of webhook-cms-receiver/publish without its optional peers', () => {
  it('builds, and the sanitizer then names the packages to install', async () => {
    cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    writeFileSync(
      join(dir, 'worker.mjs'),
      `import { sanitizeHtml, contentHash } from './dist/publish.js';
      console.log(typeof contentHash);
      sanitizeHtml('<b>x</b>').then(
        () => console.log('sanitized'),
        (error) => console.log(error.message),
      );`,
    );
    const result = await build({
      entryPoints: [join(dir, 'worker.mjs')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      outfile: join(dir, 'out.mjs'),
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const output = execFileSync(process.execPath, [join(dir, 'out.mjs')], { encoding: 'utf8' });
    expect(output).toMatch(/^function\n/);
    expect(output).toMatch(
      /sanitizeHtml needs the optional peer dependencies .*npm install hast-util-from-html hast-util-sanitize hast-util-to-html/,
    );
  });
});
