import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the pointers the tools print lead somewhere', () => {
  it('the demo\'s "Next:" line names a README section that exists', () => {
    const next = read('scripts/demo.mjs')
      .split('\n')
      .find((line) => line.includes("'Next: "));
    const named = next?.match(/the (.+?) section of README\.md/)?.[1];
    expect(named, next).toBeDefined();
    const headings = read('README.md')
      .split('\n')
      .filter((line) => /^#{2,3} /.test(line))
      .map((line) => line.replace(/^#+ /, ''));
    expect(headings).toContain(named);
  });
});
