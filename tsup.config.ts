import { defineConfig, type Options } from 'tsup';

type TsupPlugin = NonNullable<Options['plugins']>[number];

/**
 * Drops the bare `import "./chunk-….js";` lines esbuild's code splitting leaves for evaluation
 * order. The chunks only declare (`sideEffects: false`), so a bundler ignores these imports
 * anyway, but esbuild warns about each one in every user's build that reaches them.
 */
const noBareChunkImports: TsupPlugin = {
  name: 'no-bare-chunk-imports',
  renderChunk(code) {
    if (this.format !== 'esm') return undefined;
    return { code: code.replace(/^import "\.\/chunk-[\w-]+\.js";\n/gm, '') };
  },
};

const library: Options = {
  entry: {
    index: 'src/index.ts',
    'adapter-kit': 'src/adapter-kit/index.ts',
    testing: 'src/testing/index.ts',
    redis: 'src/redis/index.ts',
    node: 'adapters/node/index.ts',
    express: 'adapters/express/index.ts',
    hono: 'adapters/hono/index.ts',
    fetch: 'adapters/fetch/index.ts',
    fastify: 'adapters/fastify/index.ts',
    koa: 'adapters/koa/index.ts',
    h3: 'adapters/h3/index.ts',
    lambda: 'adapters/lambda/index.ts',
    postgres: 'src/postgres/index.ts',
    cloudflare: 'src/cloudflare/index.ts',
    bullmq: 'src/bullmq/index.ts',
    'pg-boss': 'src/pg-boss/index.ts',
    opentelemetry: 'src/opentelemetry/index.ts',
    publish: 'src/publish/index.ts',
    dynamodb: 'src/dynamodb/index.ts',
    sqs: 'src/sqs/index.ts',
  },
  format: ['esm', 'cjs'],
  // The core and /adapter-kit are built from the same sources: shared chunks give both one copy
  // of the receiver (one WebhookError class) in CommonJS as well as in ESM.
  splitting: true,
  plugins: [noBareChunkImports],
  dts: true,
  // Keeps the CLI, built beside the library at the same time by the config below.
  clean: ['!cli.js'],
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
  // Adapters and helpers import the core by name, so every entry shares one copy of it
  // (one WebhookError class) instead of bundling its own.
  external: [
    'webhook-cms-receiver',
    /^webhook-cms-receiver\//,
    'express',
    'hono',
    /^hono\//,
    'fastify',
    'koa',
    'h3',
    'pg',
    'postgres',
    /^cloudflare:/,
    // Optional peers of /dynamodb and /sqs.
    /^@aws-sdk\//,
    // Optional peers of /bullmq and /pg-boss.
    'bullmq',
    'pg-boss',
    // Optional peer of /opentelemetry: the user's own copy, so spans join their SDK's context.
    '@opentelemetry/api',
    // Optional peers of /publish, imported on first use of the sanitizer.
    'hast-util-from-html',
    'hast-util-sanitize',
    'hast-util-to-html',
  ],
};

// The CLI is a Node program: ESM only, bundling the helpers it uses, with the shebang npx needs.
const cli: Options = {
  entry: { cli: 'src/cli/main.ts' },
  format: ['esm'],
  dts: false,
  clean: false,
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  banner: { js: '#!/usr/bin/env node' },
};

export default defineConfig([library, cli]);
