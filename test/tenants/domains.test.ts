import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type Tenant } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

// Issue 45, defect 12: a tenant's domain and the envelope's profile.domain were compared with
// toLowerCase() only, so the same site written in Unicode on one side and in punycode (or with a
// trailing dot) on the other was answered 403 Profile mismatch, which the service never retries.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const TOKEN = 'whk_domain_site_token';

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function post(tenantDomain: string, envelopeDomain: string): Promise<number> {
  const site: Tenant = { id: 'site-d', token: TOKEN, profileId: 'prof-d', domain: tenantDomain };
  const receiver = createReceiver({
    logger: false,
    tenants: (hash) => (hash === sha256(TOKEN) ? site : undefined),
  });
  const server = await listen(createServer(webhookHandler(receiver, { 'article.sync': () => {} })));
  servers.push(server);
  const { headers, body } = signDelivery({
    token: TOKEN,
    payload: articleSyncPayload({ profile: { id: 'prof-d', domain: envelopeDomain } }),
  });
  const response = await fetch(`${server.url}/`, { method: 'POST', headers, body });
  await response.arrayBuffer();
  return response.status;
}

describe('tenant domains compare as hosts over HTTP (issue 45, defect 12)', () => {
  it.each([
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'Bücher.example'],
    ['blog.example.com.', 'blog.example.com'],
    ['\u212Aelvin.example', 'kelvin.example'],
  ])('tenant %j and envelope %j are one site: 200', async (tenantDomain, envelopeDomain) => {
    expect(await post(tenantDomain, envelopeDomain)).toBe(200);
  });

  it.each([
    ['paypal.com', 'раураl.com'],
    ['blog.example.com', 'blog.example.com/evil'],
  ])('tenant %j and envelope %j are not: 403 Profile mismatch', async (tenantDomain, envelopeDomain) => {
    expect(await post(tenantDomain, envelopeDomain)).toBe(403);
  });
});
