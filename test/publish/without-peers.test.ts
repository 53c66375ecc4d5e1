import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The BUILT entry (npm test builds first), copied where no node_modules can be found: the hast
// packages are optional peers, so everything but the sanitizer must work without them.
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'publish-without-peers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const article = JSON.stringify({ status: 'published', published_at: '2026-01-01T00:00:00Z', scheduled_at: null });
const script = (load: string) => `
  const publish = ${load};
  const visible = publish.isPublic(${article}, { now: Date.parse('2026-06-01T00:00:00Z') });
  const error = await publish.sanitizeHtml('<p>x</p>').then(
    () => ({ message: 'no error' }),
    (error) => ({ message: error.message, cause: String(error.cause) }),
  );
  console.log(JSON.stringify({ visible, error }));`;

describe('/publish without its optional peers', () => {
  it.each([
    ['ESM', 'publish.js', 'check.mjs', "await import('./publish.js')"],
    ['CommonJS', 'publish.cjs', 'check.cjs', "require('./publish.cjs')"],
  ])('loads from %s, and only sanitizeHtml asks for the hast packages', (_format, file, check, load) => {
    copyFileSync(join(dist, file), join(dir, file));
    const body = check.endsWith('.cjs') ? `(async () => {${script(load)}})();` : script(load);
    writeFileSync(join(dir, check), body);
    const out = JSON.parse(execFileSync(process.execPath, [check], { cwd: dir, encoding: 'utf8' }));
    expect(out.visible).toBe(true);
    expect(out.error.message).toMatch(
      /^sanitizeHtml needs the optional peer dependencies .* npm install hast-util-from-html hast-util-sanitize hast-util-to-html$/,
    );
    // The loader's own error stays attached, for the one peer it could not find.
    expect(out.error.cause).toMatch(/hast-util-/);
  });
});
