import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { MATRIX_FILES } from './test/setup/matrix-files.js';

/**
 * `npm run test:matrix`: the files `npm test` leaves out (test/setup/matrix-files.ts), with the
 * same aliases, services and reporters. `npm test && npm run test:matrix` runs every test once.
 * (Built by hand, not with mergeConfig, which would append to the base config's lists.)
 */
export default defineConfig({
  resolve: base.resolve,
  test: {
    ...base.test,
    include: MATRIX_FILES.map((glob) => (glob.endsWith('/**') ? `${glob}/*.test.ts` : glob)),
    exclude: ['**/node_modules/**', '**/.scratch/**'],
  },
});
