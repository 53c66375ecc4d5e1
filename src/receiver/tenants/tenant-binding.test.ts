import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../errors/webhook-error.js';
import type { WebhookEvent } from '../../events/types.js';
import { checkTenant, domainKey } from './tenant-binding.js';

const ref = { id: 'site-a' };
const tenant = { ref, profileId: 'prof-a', domain: 'a.example.com' };

/** An event as the parser makes it; only type, payload and profile matter here. */
function event(type: WebhookEvent['type'], payload: object, profile?: object): WebhookEvent {
  return { type, name: type, payload, profile } as unknown as WebhookEvent;
}

function refusal(run: () => unknown): WebhookError {
  try {
    run();
  } catch (error) {
    return error as WebhookError;
  }
  throw new Error('expected a refusal');
}

describe("checkTenant: an event must name its token's tenant", () => {
  it.each(['article.sync', 'article.trash'] as const)('binds a %s naming the profile and domain', (type) => {
    const ok = event(type, {}, { id: 'prof-a', domain: 'A.Example.COM' });
    expect(checkTenant(ok, tenant)).toBe(ok);
    expect(ok.tenant).toBe(ref);
  });

  it.each(['article.sync', 'article.trash'] as const)("refuses a %s naming another site's profile id", (type) => {
    const error = refusal(() => checkTenant(event(type, {}, { id: 'prof-b', domain: 'a.example.com' }), tenant));
    expect(error).toBeInstanceOf(WebhookError);
    expect(error).toMatchObject({ code: 'profile_mismatch', status: 403 });
    expect(error.reason).toBe(
      'the envelope names profile.id "prof-b", but the token belongs to tenant "site-a" (profile "prof-a"): ' +
        "another site's token, or the tenant's profileId/domain is out of date",
    );
  });

  it("refuses another site's domain under the right profile id, naming the domain", () => {
    const error = refusal(() =>
      checkTenant(event('article.sync', {}, { id: 'prof-a', domain: 'b.example.com' }), tenant),
    );
    expect(error.code).toBe('profile_mismatch');
    expect(error.reason).toBe(
      'the envelope names profile.domain "b.example.com", but the token belongs to tenant "site-a" ' +
        '(domain "a.example.com"): another site\'s token, or the tenant\'s profileId/domain is out of date',
    );
  });

  it('checks only what the tenant names', () => {
    const idOnly = { ref, profileId: 'prof-a', domain: undefined };
    const domainOnly = { ref, profileId: undefined, domain: 'a.example.com' };
    const neither = { ref, profileId: undefined, domain: undefined };
    const other = () => event('article.sync', {}, { id: 'prof-z', domain: 'z.example.com' });
    expect(checkTenant(event('article.sync', {}, { id: 'prof-a', domain: 'z.example.com' }), idOnly).tenant).toBe(ref);
    expect(checkTenant(event('article.sync', {}, { id: 'prof-z', domain: 'a.example.com' }), domainOnly).tenant).toBe(
      ref,
    );
    expect(checkTenant(other(), neither).tenant).toBe(ref);
    expect(refusal(() => checkTenant(other(), idOnly)).code).toBe('profile_mismatch');
    expect(refusal(() => checkTenant(other(), domainOnly)).code).toBe('profile_mismatch');
    // A missing domain is not the tenant's domain.
    expect(refusal(() => checkTenant(event('article.sync', {}, { id: 'prof-a' }), domainOnly)).reason).toContain(
      'profile.domain undefined',
    );
  });

  it('passes a test event on the token alone, and sets its tenant', () => {
    const test = event('test', { profile: { id: 'prof-z' } });
    expect(checkTenant(test, tenant).tenant).toBe(ref);
  });

  it('holds an unknown event carrying a profile to the same check, and names a non-string id by its type', () => {
    const unknown = (profile: unknown) => event('unknown', { event: 'job.completed', profile });
    expect(checkTenant(unknown({ id: 'prof-a', domain: 'a.example.com' }), tenant).tenant).toBe(ref);
    const wrongId = refusal(() => checkTenant(unknown({ id: 7, domain: 'a.example.com' }), tenant));
    expect(wrongId.code).toBe('profile_mismatch');
    expect(wrongId.reason).toContain('names profile.id of type number, but');
    // A domain that is not a string is no domain: refused where the tenant names one.
    expect(refusal(() => checkTenant(unknown({ id: 'prof-a', domain: 7 }), tenant)).reason).toContain(
      'profile.domain undefined',
    );
    // No profile object: nothing to check, bound on the token.
    for (const profile of [undefined, null, 'prof-b', 7]) {
      expect(checkTenant(unknown(profile), tenant).tenant).toBe(ref);
    }
  });
});

describe('domainKey: tenant domains compare as hosts (issue 45, defect 12)', () => {
  // [the tenant's domain, the envelope's profile.domain, whether they name the same site]
  const vectors: [string, string, boolean][] = [
    ['bücher.example', 'xn--bcher-kva.example', true],
    ['xn--bcher-kva.example', 'bücher.example', true],
    ['BÜCHER.Example', 'xn--bcher-kva.example', true],
    ['\u212Aelvin.example', 'kelvin.example', true],
    ['kelvin.example', '\u212Aelvin.example', true],
    ['a.example.com.', 'a.example.com', true],
    ['a.example.com', 'A.EXAMPLE.COM.', true],
    ['A.Example.COM', 'a.example.com', true],
    ['a.example.com', 'a.example.com', true],
    // Look-alikes stay different: "раураl" with Cyrillic а, р and у is not "paypal".
    ['paypal.com', 'раураl.com', false],
    ['раураl.com', 'paypal.com', false],
    ['paypal.com', 'pаypal.com', false],
    // Only a host is a host: a path, user info, a port or a second dot make another name.
    ['a.example.com', 'a.example.com/x', false],
    ['a.example.com', 'evil@a.example.com', false],
    ['a.example.com', 'a.example.com:80', false],
    ['a.example.com', 'a.example.com..', false],
    ['a.example.com', 'b.example.com', false],
    // The URL parser would drop a tab inside, or a control character at either end: not here.
    ['a.example.com', 'a.exa\tmple.com', false],
    ['a.example.com', '\u0001a.example.com', false],
    ['a.example.com', 'a.example.com\u007f', false],
    // Not a host at all: compared as lower-cased text, never thrown.
    ['exa mple.com', 'EXA MPLE.COM', true],
    ['exa mple.com', 'exa_mple.com', false],
    ['exa<mple.com', 'exa<mple.com.', false],
  ];

  it.each(vectors)('tenant %j, envelope %j: same site %s', (tenantDomain, envelopeDomain, same) => {
    const binding = { ref, profileId: undefined, domain: domainKey(tenantDomain) };
    const run = () => checkTenant(event('article.sync', {}, { id: 'prof-a', domain: envelopeDomain }), binding);
    if (same) expect(run().tenant).toBe(ref);
    else expect(refusal(run).code).toBe('profile_mismatch');
    expect(domainKey(tenantDomain) === domainKey(envelopeDomain)).toBe(same);
  });

  it('gives the ASCII host, lower case, without its trailing dot', () => {
    expect(domainKey('Bücher.Example.')).toBe('xn--bcher-kva.example');
    expect(domainKey('\u212Aelvin.EXAMPLE')).toBe('kelvin.example');
    expect(domainKey('раураl.com')).toBe('xn--l-7sba6dbr.com');
  });

  it('never throws, whatever the text', () => {
    for (const text of ['', '.', '[', '%', '%zz', 'a/b', 'http://', '\u0000', '\uD800', 'ß'.repeat(300), 'A B']) {
      expect(typeof domainKey(text)).toBe('string');
    }
    expect(domainKey('A B')).toBe('a b');
    // The URL parser refuses these: kept whole, a trailing dot included.
    expect(domainKey('Exa<mple.com.')).toBe('exa<mple.com.');
    expect(domainKey('[.')).toBe('[.');
    expect(domainKey('A%42.example')).toBe('a%42.example');
  });
});
