import type { NextConfig } from 'next';

const config: NextConfig = {
  // PGlite loads its WebAssembly and data files next to its own module, and pg has optional
  // native parts: both are loaded from node_modules at run time rather than bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg'],
};

export default config;
