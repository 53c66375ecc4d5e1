import { startServer } from './app.mjs';

const token = process.env.WEBHOOK_TOKEN;
if (!token) {
  console.error(
    'WEBHOOK_TOKEN is not set. Copy the token shown in Profile Settings → CMS Integration and start with:\n  WEBHOOK_TOKEN=<your token> npm start',
  );
  process.exit(1);
}

const { url } = await startServer({
  token,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  publicBaseUrl: process.env.PUBLIC_BASE_URL ?? 'https://blog.example.com',
});
console.log(`Webhook endpoint: ${url}/webhook`);
