import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The BUILT package (npm test builds first), imported by name from inside the repository (a
// self-reference through package.json exports), in a child process so vitest's aliases to the
// sources do not apply.
const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.scratch'), { recursive: true });
const dir = mkdtempSync(join(root, '.scratch', 'adapter-kit-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The kit's runtime exports; its types are checked by the type-check of the adapters. */
const KIT_VALUES = [
  'answerRequest',
  'byteLimitText',
  'errorHttpAnswer',
  'exchangeHandler',
  'exchangeVerifier',
  'forwardedHeaders',
  'handedBody',
  'isFetchBody',
  'isFetchRequest',
  'logUnexpected',
  'serveRequest',
  'statusLine',
  'toFetchResponse',
  'toHttp',
  'verifyRequest',
];

const compare = `
  const names = Object.keys(kit).sort();
  const differ = names.filter((name) => core[name] !== kit[name]);
  const kinds = [...new Set(names.map((name) => typeof kit[name]))];
  console.log(JSON.stringify({ names, differ, kinds }));`;

describe('webhook-cms-receiver/adapter-kit', () => {
  it.each([
    [
      'ESM',
      'check.mjs',
      `import * as core from 'webhook-cms-receiver';\nimport * as kit from 'webhook-cms-receiver/adapter-kit';${compare}`,
    ],
    [
      'CommonJS',
      'check.cjs',
      `const core = require('webhook-cms-receiver');\nconst kit = require('webhook-cms-receiver/adapter-kit');${compare}`,
    ],
  ])('gives the same functions as the deprecated core names (%s)', (_format, file, script) => {
    writeFileSync(join(dir, file), script);
    const out = JSON.parse(execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' }));
    expect(out.names).toEqual(KIT_VALUES);
    expect(out.kinds).toEqual(['function']);
    expect(out.differ).toEqual([]);
  });
});
