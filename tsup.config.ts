import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    redis: 'src/redis/index.ts',
    express: 'adapters/express/index.ts',
    hono: 'adapters/hono/index.ts',
    fetch: 'adapters/fetch/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
  // Adapters and helpers import the core by name, so every entry shares one copy of it
  // (one WebhookError class) instead of bundling its own.
  external: ['webhook-cms-receiver', /^webhook-cms-receiver\//, 'express', 'hono', /^hono\//],
});
