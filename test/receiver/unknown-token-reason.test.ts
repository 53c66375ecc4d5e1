import { describe, expect, it } from 'vitest';
import { createReceiver, type WebhookError } from 'webhook-cms-receiver';
import { signDelivery, testPayload } from 'webhook-cms-receiver/testing';

// Issue 46: tenant mode's 401 spoke of "configured tokens", which a tenant-mode receiver has
// none of; the reason a user reads must point at the sites table instead.

describe('the reason of a 401 for an unknown token', () => {
  it('in tenant mode names the site lookup, not configured tokens', async () => {
    const rejected: WebhookError[] = [];
    const receiver = createReceiver({ tenants: () => undefined, onRejected: (error) => rejected.push(error) });
    const answer = await receiver.handle(signDelivery({ token: 'whk_nobody_has_this', payload: testPayload() }));
    expect(answer.status).toBe(401);
    expect(rejected[0]!.reason).toMatch(
      /^the Bearer token belongs to no site: tenants returned no site for its SHA-256/,
    );
    expect(rejected[0]!.reason).not.toContain('configured tokens');
  });

  it('with a token keeps speaking of the configured tokens', async () => {
    const rejected: WebhookError[] = [];
    const receiver = createReceiver({ token: 'whk_the_real_one', onRejected: (error) => rejected.push(error) });
    await receiver.handle(signDelivery({ token: 'whk_not_it', payload: testPayload() }));
    expect(rejected[0]!.reason).toMatch(/^the Bearer token matches none of the configured tokens;/);
  });
});
