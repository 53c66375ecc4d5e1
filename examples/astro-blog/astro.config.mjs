import node from '@astrojs/node';
import { defineConfig } from 'astro/config';

// Every page is rendered on demand by the Node server: an article appears, moves or goes the
// moment its delivery is stored, with no rebuild, and a page can answer a real 301 or 410.
export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'standalone' }),
});
