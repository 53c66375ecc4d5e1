// Tenant mode (contract v4) on whatever runtime loads this module: Node, Bun, Deno and workerd
// with and without nodejs_compat. Web APIs only: the deliveries are signed with Web Crypto, and
// the resolver's table is keyed by Web Crypto's SHA-256, so where the core hashes the token
// through node:crypto or through Web Crypto, both must agree.
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/fetch';

const encoder = new TextEncoder();
const hex = (buffer) => [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
const sha256Hex = async (text) => hex(await crypto.subtle.digest('SHA-256', encoder.encode(text)));

async function hmacHex(token, message) {
  const key = await crypto.subtle.importKey('raw', encoder.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}

const SITES = [
  { id: 'site-a', token: 'whk_runtime_site_a_0123456789', profileId: 'prof-a', domain: 'a.example.com' },
  { id: 'site-b', token: 'whk_runtime_site_b_9876543210', profileId: 'prof-b', domain: 'B.Example.com' },
];

/** A signed article.sync request from `token`, naming `profile`, under `deliveryId`. */
async function syncRequest(token, profile, deliveryId) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({
    event: 'article.sync',
    timestamp: Number(timestamp),
    article: {
      id: 'article-1',
      title: 'Tenants',
      slug: 'tenants',
      status: 'published',
      content_markdown: 'x',
      content_html: '<p>x</p>',
      meta_description: 'x',
      featured_image_url: null,
      tags: [],
      scheduled_at: null,
      published_at: '2026-11-20T10:00:00Z',
    },
    profile,
  });
  return new Request('http://127.0.0.1/webhook', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${token}`,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': `sha256=${await hmacHex(token, `${timestamp}.${body}`)}`,
      'X-Service-Event': 'article.sync',
      'X-Service-Delivery-Id': deliveryId,
    },
    body,
  });
}

/** A tenant-mode receiver behind the Fetch adapter, recording resolver calls and handler runs. */
async function tenantEndpoint() {
  const byHash = new Map(await Promise.all(SITES.map(async (site) => [await sha256Hex(site.token), site])));
  const lookups = [];
  const seen = [];
  const receiver = createReceiver({
    tenants: async (hash) => {
      lookups.push(hash);
      return byHash.get(hash);
    },
    logger: false,
  });
  const handler = webhookHandler(receiver, { 'article.sync': (event) => void seen.push(event.tenant?.id) });
  return { handler, lookups, seen };
}

const profileOf = (site) => ({ id: site.profileId, domain: site.domain.toLowerCase() });

/**
 * The tenant checks, by name: each resolves, or throws saying what differed.
 *
 * @example
 * ```js
 * for (const [name, check] of Object.entries(TENANT_CHECKS)) await check();
 * ```
 */
export const TENANT_CHECKS = {
  async 'tenants: two sites at one endpoint, looked up by SHA-256 hex, event.tenant, per-site dedup'() {
    const { handler, lookups, seen } = await tenantEndpoint();
    const [a, b] = SITES;
    const answers = [];
    for (const site of [a, b, a]) {
      const response = await handler(await syncRequest(site.token, profileOf(site), 'shared-delivery'));
      answers.push(`${response.status} ${JSON.stringify(await response.json())}`);
    }
    expectEqual('answers', answers.join(' | '), '200 {"ok":true} | 200 {"ok":true} | 200 {"ok":true,"duplicate":true}');
    expectEqual('event.tenant of each run', seen.join(), 'site-a,site-b');
    expectEqual('resolver calls', lookups.join(), [await sha256Hex(a.token), await sha256Hex(b.token)].join());
  },
  async "tenants: 403 Profile mismatch when a site's token signs another site's profile"() {
    const { handler, seen } = await tenantEndpoint();
    const response = await handler(await syncRequest(SITES[0].token, profileOf(SITES[1]), 'forged-delivery'));
    expectEqual('status', response.status, 403);
    expectEqual('body', JSON.stringify(await response.json()), JSON.stringify({ error: 'Profile mismatch' }));
    expectEqual('handler runs', seen.length, 0);
  },
  async 'tenants: a token no site has is 401'() {
    const { handler } = await tenantEndpoint();
    const unknown = await handler(await syncRequest('whk_runtime_nobody', profileOf(SITES[0]), 'unknown-delivery'));
    expectEqual('unknown token status', unknown.status, 401);
  },
};

function expectEqual(what, actual, expected) {
  if (actual !== expected)
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
