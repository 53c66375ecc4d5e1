import type { NextConfig } from 'next';

const config: NextConfig = {
  // PGlite loads its WebAssembly and data files next to its own module, and pg has optional
  // native parts: both are loaded from node_modules at run time rather than bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg'],
  // With `revalidate = 60` on pages: Cache-Control `s-maxage=60, stale-while-revalidate=60`,
  // so a CDN serves a page at most two minutes after it was trashed (see lib/site-feeds.mjs).
  expireTime: 120,
};

export default config;
