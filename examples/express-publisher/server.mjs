import { createInspector } from 'webhook-cms-receiver/testing';
import { startPublisher } from './app.mjs';

const token = process.env.WEBHOOK_TOKEN;
if (!token) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token shown in Profile Settings → CMS Integration and start with:\n  WEBHOOK_TOKEN=<your token> npm start',
  );
  process.exit(1);
}

// WEBHOOK_INSPECTOR=1 records every delivery to .webhook-inspector/ for the inspector page.
const inspecting = process.env.WEBHOOK_INSPECTOR === '1';
const { url } = await startPublisher({
  token,
  inspect: inspecting ? createInspector({ token }) : undefined,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  contentDir: process.env.CONTENT_DIR ?? './content',
  publicBaseUrl: process.env.PUBLIC_BASE_URL,
});
console.log(`Publishing to ${process.env.CONTENT_DIR ?? './content'}; webhook endpoint: ${url}/webhook`);
if (inspecting) console.log(`Inspector on: run  npx webhook-cms-receiver inspect --target ${url}/webhook  here`);
