#!/usr/bin/env node
// `npm run check:readme`: every code block of README.md, CONTRIBUTING.md and docs/*.md is run
// or marked. A ```ts or ```js block with no marker is run as written by
// test/docs/code-blocks.test.ts (part of `npm test`); any other block, or one that cannot run
// here (another runtime, a server of yours), carries `<!-- fragment: reason -->` on the line
// before its fence, and this check fails on a block with neither, or a marker with no reason.
// Every ```ts and ```js block, run or not, is also type-checked, as a user would paste it,
// against the package's own entries (tsconfig.json's paths map `webhook-cms-receiver/*` to the
// sources). Each block becomes one module in .scratch/readme/, so blocks do not see each other;
// the names a snippet takes from the user's own code (savePost, db, …) come from the small
// PRELUDE below (test/docs/prelude.mjs gives them values when the blocks run). A block whose
// info string says `no-check` (```ts no-check) is not type-checked: use it for fragments only.
// Errors are reported at their line in the Markdown file. Usage: node scripts/check-readme.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBlocks, docFiles, RUNNABLE } from './doc-blocks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = docFiles(root);
const scratch = join(root, '.scratch', 'readme');

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

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
// A .ts, not a .d.ts: skipLibCheck would hide a prelude that no longer matches the package.
writeFileSync(join(scratch, 'prelude.ts'), PRELUDE);
writeFileSync(join(scratch, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);

/** Scratch file name → where its first line sits in the docs. */
const origins = new Map();
let skipped = 0;
let run = 0;
let fragments = 0;
const unmarked = [];
for (const block of allBlocks(root)) {
  const where = `${block.doc}:${block.line - 1}`;
  const extension = RUNNABLE[block.lang];
  if (block.fragment === '') unmarked.push(`${where}: the fragment marker gives no reason`);
  else if (block.fragment !== undefined) fragments++;
  else if (extension) run++;
  else
    unmarked.push(
      `${where}: a \`\`\`${block.lang || '(no language)'} block is never run: mark it <!-- fragment: reason --> on the line before`,
    );
  if (!extension) continue;
  if (block.flags.includes('no-check')) {
    skipped++;
    if (block.fragment === undefined) unmarked.push(`${where}: a no-check block cannot run: mark it a fragment`);
    continue;
  }
  // Zero-padded, so tsc reports the blocks in the order they appear.
  const name = `${block.doc.replace(/\.md$/, '').replace('/', '-')}-${String(block.line).padStart(4, '0')}.${extension}`;
  // `export {}` makes every block a module, so its names stay its own.
  writeFileSync(join(scratch, name), `${block.code}\nexport {};\n`);
  origins.set(name, { doc: block.doc, line: block.line });
}
if (unmarked.length > 0) {
  console.error(`check-readme: ${unmarked.length} code block(s) neither run nor marked:\n  ${unmarked.join('\n  ')}`);
  process.exit(1);
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

const summary = `${origins.size} code blocks from ${DOCS.join(', ')} (${run} run by test/docs/code-blocks.test.ts, ${fragments} marked fragments)`;
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
