import { publishingStarterSuite } from './publishing-starter-suite.js';

// Astro 5 with @astrojs/node, every page rendered on demand: the article page answers a real
// 301 (Astro.redirect(…, 301)) and sets 404 or 410 on its response.
publishingStarterSuite({ name: 'astro-blog', framework: 'Astro', ready: /Server listening on/ });
