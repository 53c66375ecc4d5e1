#!/usr/bin/env node
// `npm run check:readme`: every ```ts and ```js block of README.md, CONTRIBUTING.md and docs/*.md is
// type-checked, as a user would paste it, against the package's own entries (tsconfig.json's
// paths map `webhook-cms-receiver/*` to the sources). Each block becomes one module in
// .scratch/readme/, so blocks do not see each other; the names a snippet takes from the
// user's own code (savePost, db, …) come from the small PRELUDE below. A block whose info
// string says `no-check` (```ts no-check) is skipped: use it for fragments only, sparingly.
// Errors are reported at their line in the Markdown file. Usage: node scripts/check-readme.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The README, CONTRIBUTING.md and every guide in docs/.
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const scratch = join(root, '.scratch', 'readme');
const EXTENSIONS = { ts: 'ts', typescript: 'ts', js: 'mjs', javascript: 'mjs' };

// What snippets take from the user's side: their own functions and the objects an earlier
// snippet built. Global, so a snippet's own `const receiver = …` shadows it.
const PRELUDE = `import type { Receiver, SyncArticle, WebhookHandlers } from 'webhook-cms-receiver';
import type { cloudflareQueue, durableObjectDedupStore, QueueConsumerOptions } from 'webhook-cms-receiver/cloudflare';

type Post = { id: string; slug: string };

declare global {
  /** The user's own persistence. */
  function savePost(article: SyncArticle): Promise<void>;
  function deletePost(slug: string): Promise<void>;
  /** An ORM client, as Prisma's looks. */
  const db: { post: { upsert(args: object): Promise<Post>; delete(args: object): Promise<Post> } };
  /** What the quick start built. */
  const receiver: Receiver;
  const handlers: WebhookHandlers;
  /** A Worker's bindings, as \`wrangler types\` declares them (the namespace's type taken from the store). */
  interface Env {
    WEBHOOK_TOKEN: string;
    WEBHOOK_DEDUP: Parameters<typeof durableObjectDedupStore>[0];
    /** Queue mode: the producer, the R2 bucket for large bodies and the dead-letter queue. */
    WEBHOOKS: Parameters<typeof cloudflareQueue>[0];
    WEBHOOK_BODIES: Parameters<typeof cloudflareQueue>[1]['bodies'];
    WEBHOOKS_DEAD: NonNullable<QueueConsumerOptions['deadLetter']>;
  }
  /** Bun's types are not installed here. */
  const Bun: { serve(options: { port: number; fetch(request: Request): Promise<Response> }): unknown };
}
`;

const TSCONFIG = {
  extends: '../../tsconfig.json',
  compilerOptions: {
    types: ['node'],
    noEmit: true,
    declaration: false,
    allowJs: true,
    checkJs: true,
  },
  include: ['*.ts', '*.mjs'],
};

/** The fenced code blocks of a Markdown text, with the 1-based line of their first code line. */
function codeBlocks(text) {
  const blocks = [];
  let open;
  text.split('\n').forEach((line, index) => {
    const fence = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(line);
    if (!open) {
      if (!fence) return;
      const [lang = '', ...flags] = fence[3].trim().split(/\s+/);
      open = { indent: fence[1].length, fence: fence[2], lang: lang.toLowerCase(), flags, line: index + 2, lines: [] };
    } else if (fence && fence[2][0] === open.fence[0] && fence[2].length >= open.fence.length && !fence[3].trim()) {
      blocks.push(open);
      open = undefined;
    } else {
      // Code inside a list item is indented like its fence.
      open.lines.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
    }
  });
  return blocks;
}

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
// A .ts, not a .d.ts: skipLibCheck would hide a prelude that no longer matches the package.
writeFileSync(join(scratch, 'prelude.ts'), PRELUDE);
writeFileSync(join(scratch, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);

/** Scratch file name → where its first line sits in the docs. */
const origins = new Map();
let skipped = 0;
for (const doc of DOCS) {
  const path = join(root, doc);
  if (!existsSync(path)) continue;
  for (const block of codeBlocks(readFileSync(path, 'utf8'))) {
    const extension = EXTENSIONS[block.lang];
    if (!extension) continue;
    if (block.flags.includes('no-check')) {
      skipped++;
      continue;
    }
    // Zero-padded, so tsc reports the blocks in the order they appear.
    const name = `${doc.replace(/\.md$/, '').replace('/', '-')}-${String(block.line).padStart(4, '0')}.${extension}`;
    // `export {}` makes every block a module, so its names stay its own.
    writeFileSync(join(scratch, name), `${block.lines.join('\n')}\nexport {};\n`);
    origins.set(name, { doc, line: block.line });
  }
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let output = '';
let failed = false;
try {
  execFileSync(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
} catch (error) {
  failed = true;
  output = `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message;
}

const summary = `${origins.size} code blocks from ${DOCS.filter((doc) => existsSync(join(root, doc))).join(', ')}`;
if (!failed) {
  console.log(`check-readme: ${summary} type-check${skipped ? ` (${skipped} marked no-check, skipped)` : ''}`);
} else {
  // `.scratch/readme/README-42.ts(3,7): error TS…` → `README.md:44:7 error TS…`
  const located = output.replace(/^(?:.*[\\/])?([\w.-]+?\.(?:ts|mjs))\((\d+),(\d+)\):/gm, (whole, name, line, col) => {
    const origin = origins.get(name);
    return origin ? `${origin.doc}:${origin.line + Number(line) - 1}:${col}` : whole;
  });
  console.error(`check-readme: ${summary}; these do not type-check as written:\n${located.trim()}`);
  console.error(
    `(the generated modules are in ${join('.scratch', 'readme')}; the prelude is in scripts/check-readme.mjs)`,
  );
  process.exit(1);
}
