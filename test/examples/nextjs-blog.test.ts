import { publishingStarterSuite } from './publishing-starter-suite.js';

// Next.js 16 App Router: the page is cached and revalidated by revalidatePath on each delivery;
// proxy.ts answers 301, 404 and 410, which a page cannot.
publishingStarterSuite({ name: 'nextjs-blog', framework: 'Next.js', ready: /Ready in/, cachedPages: true });
