// The prelude the docs' code blocks run with (test/docs/code-blocks.test.ts): values for the
// names a snippet takes from the reader's own code, which scripts/check-readme.mjs's PRELUDE
// types. The blocks themselves run as written.
import { createReceiver } from 'webhook-cms-receiver';

/** The reader's own persistence: records what it was asked to do. */
globalThis.saved = [];
globalThis.savePost = async (article) => void globalThis.saved.push(article.slug);
globalThis.deletePost = async (slug) => void globalThis.saved.push(`-${slug}`);
/** An ORM client, as Prisma's looks. */
globalThis.db = {
  post: {
    upsert: async () => ({ id: '1', slug: 'hello' }),
    delete: async () => ({ id: '1', slug: 'hello' }),
  },
};
/** A secret manager (the tokens guide declares it): holds the token the test signs with. */
globalThis.readSecret = async () => JSON.stringify({ tokens: [process.env.WEBHOOK_TOKEN] });
/** What the quick start built. */
globalThis.handlers = { 'article.sync': ({ article }) => globalThis.savePost(article) };
globalThis.receiver = createReceiver({ token: process.env.WEBHOOK_TOKEN });
