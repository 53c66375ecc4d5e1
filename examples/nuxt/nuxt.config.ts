// The webhook needs nothing here: server/routes/webhook.post.ts is picked up by its path.
export default defineNuxtConfig({
  compatibilityDate: '2025-07-15',
});
