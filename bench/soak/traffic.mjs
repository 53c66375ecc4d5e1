// The driver's stream: one request every 1/rate s (open loop: a slow answer never slows the
// sender, as a real service does not wait), round-robin over the receivers, every attempt
// written to the ledger. Legit deliveries are retried the way the service retries (after 2, 5
// and 10 s, scaled by --retry-scale, on 409, 5xx or no answer; a fresh timestamp and signature
// each time, the same delivery id and body, signed with the token the service holds then).

import { randomBytes } from 'node:crypto';
import { articleBody, hostileId, signed, testBody } from './bodies.mjs';
import { LEGIT, pickKind, pickSize } from './mix.mjs';
import { post } from './send.mjs';

const RETRY_AFTER_S = [2, 5, 10];
const RETRIED = new Set([null, 409, 500, 502, 503, 504]);
/** Answers a legit delivery may get on the way to its 200. */
const LEGIT_STATUSES = new Set([200, 409, 500, 503]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What each hostile kind must be answered, from the contract's table of checks. */
const HOSTILE_STATUSES = {
  'forged-signature': [403],
  'stale-timestamp': [403],
  'malformed-body': [400],
  'oversized-declared': [413],
  'oversized-body': [413],
  'removed-tenant': [401, 503],
};

export function createTraffic({ world, targets, ledger, config, random }) {
  let turn = 0;
  let inFlight = 0;
  const pending = new Set();
  const recent = [];
  const target = () => targets[turn++ % targets.length];
  const tenantOf = () => {
    const sending = world.sendingTenants();
    return sending[Math.floor(random() * sending.length)];
  };

  async function attempt(entry, delivery) {
    inFlight++;
    const sentAt = Date.now();
    const answer = await post(target(), delivery);
    inFlight--;
    entry.statuses.push(answer.status);
    const error = answer.status === null ? answer.error : delivery.answer?.error;
    ledger.answered(entry, { ...answer, error, sentAt, duplicate: delivery.answer?.duplicate === true });
    return answer;
  }

  async function legit(entry, signFresh, extra = {}) {
    for (let i = 0; ; i++) {
      const { status } = await attempt(entry, { ...signFresh(), ...extra });
      if (!RETRIED.has(status) || i === RETRY_AFTER_S.length) break;
      await sleep(RETRY_AFTER_S[i] * 1000 * config.retryScale);
    }
  }

  function sendLegit(kind) {
    const tenant = tenantOf();
    if (kind === 'redelivery' && recent.length) {
      const { entry, body } = recent[Math.floor(random() * recent.length)];
      if (world.sendingTenants().some((t) => t.id === entry.tenant)) {
        const copy = ledger.open({ id: entry.id, kind, tenant: entry.tenant, allowed: LEGIT_STATUSES, legit: true });
        const owner = world.sendingTenants().find((t) => t.id === entry.tenant);
        return legit(copy, () => signed(world.signingToken(owner), body, entry.id));
      }
    }
    const body = kind === 'test' ? testBody() : articleBody(pickSize(random), random);
    const id = `${kind === 'test' ? 'test' : 'd'}-${randomBytes(12).toString('hex')}`;
    const entry = ledger.open({ id, kind, tenant: tenant.id, allowed: LEGIT_STATUSES, legit: true });
    if (kind !== 'test') {
      recent.push({ entry, body });
      if (recent.length > 200) recent.shift();
    }
    return legit(
      entry,
      () => signed(world.signingToken(tenant), body, id),
      kind === 'slow-upload' ? { trickleMs: 2_000 } : {},
    );
  }

  function sendHostile(kind) {
    const tenant = tenantOf();
    const id = hostileId();
    const allowed = kind === 'random-token' ? world.randomTokenStatuses() : HOSTILE_STATUSES[kind];
    const entry = ledger.open({ id, kind, tenant: tenant.id, allowed: allowed && new Set(allowed), legit: false });
    const known = world.knownToken(tenant);
    const small = () => articleBody(1024, () => 0.5);
    switch (kind) {
      case 'forged-signature': {
        const delivery = signed(known, small(), id);
        delivery.headers['x-service-signature'] = `sha256=${randomBytes(32).toString('hex')}`;
        return attempt(entry, delivery);
      }
      case 'random-token': {
        const delivery = signed(known, small(), id);
        delivery.headers.authorization = `Bearer whk_${randomBytes(16).toString('hex')}`;
        return attempt(entry, delivery);
      }
      case 'removed-tenant': {
        const token = world.removedTokens().at(-1);
        return token ? attempt(entry, signed(token, small(), id)) : undefined;
      }
      case 'stale-timestamp':
        return attempt(entry, signed(known, small(), id, -1_000));
      case 'malformed-body':
        return attempt(entry, signed(known, `{"event":"article.sync","article":${randomBytes(8).toString('hex')}`, id));
      case 'oversized-declared':
        return attempt(entry, { ...signed(known, small(), id), declaredLength: config.maxBodyBytes + 1 });
      case 'oversized-body':
        return attempt(
          entry,
          signed(
            known,
            articleBody(config.maxBodyBytes + 1024, () => 0.5),
            id,
          ),
        );
      case 'slowloris':
        return attempt(entry, { ...signed(known, small(), id), abandonAfterMs: 1_000 });
      default:
        throw new Error(`unknown kind ${kind}`);
    }
  }

  const track = (promise) => {
    if (!promise) return;
    pending.add(promise);
    promise.finally(() => pending.delete(promise));
  };

  return {
    /** One request of the mix; skipped (and counted) when too many are in flight. */
    tick() {
      if (inFlight >= config.maxInFlight) {
        ledger.skipped++;
        return;
      }
      const kind = pickKind(random);
      track(LEGIT.has(kind) ? sendLegit(kind) : sendHostile(kind));
    },
    sendHostile: (kind) => track(sendHostile(kind)),
    /** Resolves once every request and retry under way has its final answer. */
    async drain() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}
