// `npm run serve`: SITE_DIR served as a static host serves it (Netlify's `_redirects`: 301 and
// 410 lines), to look at what the workers wrote; in production, upload the folder or point
// the host at it. Every answer carries the Cache-Control of site-feeds.mjs.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { CACHE_CONTROL } from './site-feeds.mjs';

const dir = process.env.SITE_DIR ?? 'site';
const TYPES = { '.html': 'text/html; charset=utf-8', '.xml': 'application/xml; charset=utf-8' };
const read = (name) => readFile(join(dir, name), 'utf8').catch(() => undefined);

async function rules() {
  const table = new Map();
  for (const line of ((await read('_redirects')) ?? '').split('\n')) {
    const [from, to, status] = line.trim().split(/\s+/);
    if (from && to) table.set(from, { to, status: Number(status ?? 301) });
  }
  return table;
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://host').pathname;
  const send = (status, body, headers = {}) =>
    res.writeHead(status, { 'Cache-Control': CACHE_CONTROL, ...headers }).end(body);
  const rule = (await rules()).get(path);
  if (rule?.status === 301) return send(301, '', { Location: rule.to });
  if (rule) return send(rule.status, await read(rule.to.slice(1)), { 'Content-Type': TYPES['.html'] });
  const name =
    path === '/' ? 'index.html' : path.startsWith('/articles/') ? `articles/${path.slice(10)}.html` : path.slice(1);
  // Only names the workers write: no `..`, no other files of the folder.
  const allowed = /^(index\.html|sitemap\.xml|feed\.xml|articles\/[^/]+\.html)$/.test(name) && !name.includes('..');
  const body = allowed ? await read(name) : undefined;
  if (body === undefined) return send(404, (await read('404.html')) ?? '', { 'Content-Type': TYPES['.html'] });
  const type = name.endsWith('.xml')
    ? name === 'feed.xml'
      ? 'application/rss+xml; charset=utf-8'
      : TYPES['.xml']
    : TYPES['.html'];
  send(200, body, { 'Content-Type': type });
});
const host = process.env.HOST ?? '127.0.0.1';
server.listen(Number(process.env.PORT ?? 8080), host, () => {
  console.log(`site at http://${host}:${server.address().port}/ (from ${dir})`);
});
