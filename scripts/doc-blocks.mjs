// The fenced code blocks of the README and the guides, shared by scripts/check-readme.mjs (which
// type-checks them and checks each is run or marked) and test/docs/code-blocks.test.ts (which
// runs them). A block that cannot run as written is marked on the line before its fence:
//   <!-- fragment: the reason, in a few words -->
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Markdown files whose code blocks are checked, relative to the repository. */
export function docFiles(root) {
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ].filter((doc) => existsSync(join(root, doc)));
}

/** Languages a block is run in; any other block (shell, TOML, JSON) is a fragment by nature but still marked. */
export const RUNNABLE = { ts: 'ts', typescript: 'ts', js: 'mjs', javascript: 'mjs' };

const FRAGMENT = /^\s*<!--\s*fragment:\s*(.*?)\s*-->\s*$/;

/**
 * The fenced code blocks of a Markdown text: language, info-string flags, the 1-based line of
 * the first code line, the code, and `fragment`, the reason given when the line before the
 * fence marks it (an empty string when the marker gives none).
 */
export function codeBlocks(text) {
  const blocks = [];
  const lines = text.split('\n');
  let open;
  lines.forEach((line, index) => {
    const fence = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(line);
    if (!open) {
      if (!fence) return;
      const [lang = '', ...flags] = fence[3].trim().split(/\s+/);
      const marker = FRAGMENT.exec(lines[index - 1] ?? '');
      open = {
        indent: fence[1].length,
        fence: fence[2],
        lang: lang.toLowerCase(),
        flags,
        line: index + 2,
        lines: [],
        fragment: marker ? marker[1] : undefined,
      };
    } else if (fence && fence[2][0] === open.fence[0] && fence[2].length >= open.fence.length && !fence[3].trim()) {
      blocks.push({ ...open, code: open.lines.join('\n') });
      open = undefined;
    } else {
      // Code inside a list item is indented like its fence.
      open.lines.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
    }
  });
  return blocks;
}

/** Every block of every doc, with the doc it is in. */
export function allBlocks(root) {
  return docFiles(root).flatMap((doc) =>
    codeBlocks(readFileSync(join(root, doc), 'utf8')).map((block) => ({ ...block, doc })),
  );
}
