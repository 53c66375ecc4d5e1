import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createReceiver,
  type DedupStore,
  type Tenant,
  type WebhookEvent,
  type WebhookHandlers,
} from 'webhook-cms-receiver';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { BUDGET_SCALE } from '../property/budget.js';

/** Makes a store of the kind under test that shares nothing with any store made before. */
export type FreshTenantStore = () => Promise<DedupStore> | DedupStore;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Tenant ids that a naive `tenant:id` join would let meet (`a` + `1:d` against `a:1` + `d`),
 * one that looks like the scoped form itself, each with its own token and profile.
 */
export const ISOLATION_TENANTS: readonly Tenant[] = [
  { id: 'a', token: 'whk_tenant_a', profileId: 'prof-a', domain: 'a.example.com' },
  { id: 'a:1', token: 'whk_tenant_a1', profileId: 'prof-a1', domain: 'a1.example.com' },
  { id: 'tenant:1:a', token: 'whk_tenant_scoped', profileId: 'prof-s', domain: 's.example.com' },
];
// Every tenant draws from the same pools, so ids collide across tenants on purpose; braces
// too, which a Redis Cluster store must not read as its own hash tags.
const DELIVERY_IDS = ['d', '1:d', 'a:1:d', '{d}'] as const;
const ARTICLE_IDS = ['p', '1:p', 'a:1:p', '}{p'] as const;

/** One delivery of one tenant; a replay is the same delivery sent again, as the service retries. */
interface Delivery {
  deliveryId: string;
  articleId: string;
  type: 'article.sync' | 'article.trash';
  timestamp: number;
}

/** A case: each tenant's deliveries, and rounds in which several tenants send at once. */
interface Scenario {
  deliveries: Delivery[][];
  /** Per round, per tenant: the index of the delivery it sends, or null to sit the round out. */
  rounds: (number | null)[][];
}

/** Envelope timestamps come in steps of 100 s: few distinct values, so equal, older and newer all happen. */
const at = (step: number) => 1_700_000_000 + step * 100;

const deliveryArb: fc.Arbitrary<Delivery> = fc.record({
  deliveryId: fc.constantFrom(...DELIVERY_IDS),
  articleId: fc.constantFrom(...ARTICLE_IDS),
  type: fc.constantFrom('article.sync' as const, 'article.trash' as const),
  timestamp: fc.integer({ min: 1, max: 5 }).map((step) => at(step)),
});

/** Within a tenant a delivery id names one delivery: later draws of a taken id are dropped. */
const tenantDeliveries = fc
  .array(deliveryArb, { minLength: 1, maxLength: 6 })
  .map((drawn) => [...new Map(drawn.map((delivery) => [delivery.deliveryId, delivery])).values()]);

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .integer({ min: 2, max: ISOLATION_TENANTS.length })
  .chain((count) => fc.tuple(...Array.from({ length: count }, () => tenantDeliveries)))
  .chain((deliveries) =>
    fc
      .array(fc.tuple(...deliveries.map((own) => fc.option(fc.nat({ max: own.length - 1 }), { freq: 3 }))), {
        minLength: 1,
        maxLength: 8,
      })
      .map((rounds) => ({ deliveries, rounds })),
  );

/**
 * Cases every store runs first: the attack (a future-dated trash under another site's
 * delivery and article ids, sent alone and at the same moment as the victim's sync), and the
 * same with ids that a naive `tenant:id` join would make equal (`a` + `1:d` = `a:1` + `d`).
 */
const KNOWN_CASES: Scenario[] = [
  {
    deliveries: [
      [{ deliveryId: 'd', articleId: 'p', type: 'article.trash', timestamp: at(5) }],
      [{ deliveryId: 'd', articleId: 'p', type: 'article.sync', timestamp: at(1) }],
    ],
    rounds: [
      [0, 0],
      [0, null],
      [null, 0],
    ],
  },
  {
    deliveries: [
      [{ deliveryId: '1:d', articleId: '1:p', type: 'article.trash', timestamp: at(5) }],
      [{ deliveryId: 'd', articleId: 'p', type: 'article.sync', timestamp: at(1) }],
    ],
    rounds: [
      [0, null],
      [null, 0],
      [0, 0],
    ],
  },
];

/** What one tenant's own history says must be answered and run, ignoring every other tenant. */
class TenantModel {
  private readonly answers = new Map<string, object>();
  private readonly marks = new Map<string, number>();
  readonly runs: string[] = [];

  constructor(private readonly tenantId: string) {}

  expect(delivery: Delivery): object {
    const done = this.answers.get(delivery.deliveryId);
    if (done) return { ...done, duplicate: true };
    const mark = this.marks.get(delivery.articleId);
    let answer: object;
    if (mark !== undefined && mark > delivery.timestamp) {
      answer = { ok: true, stale: true };
    } else {
      this.marks.set(delivery.articleId, delivery.timestamp);
      this.runs.push(`${delivery.type}:${delivery.deliveryId}`);
      answer =
        delivery.type === 'article.sync'
          ? { ok: true, published_url: publishedUrl(this.tenantId, delivery.deliveryId) }
          : { ok: true };
    }
    this.answers.set(delivery.deliveryId, answer);
    return answer;
  }
}

const publishedUrl = (tenantId: string, deliveryId: string) =>
  `https://sites.example.com/${encodeURIComponent(tenantId)}/${encodeURIComponent(deliveryId)}`;

function signed(tenant: Tenant, delivery: Delivery) {
  const profile = { id: tenant.profileId!, domain: tenant.domain! };
  const content = { timestamp: delivery.timestamp, article: { id: delivery.articleId }, profile };
  const payload = delivery.type === 'article.sync' ? articleSyncPayload(content) : articleTrashPayload(content);
  return signDelivery({ token: tenant.token as string, deliveryId: delivery.deliveryId, payload });
}

/** Runs one scenario through a real receiver on `store` and compares every tenant with its model. */
async function runScenario(store: DedupStore, { deliveries, rounds }: Scenario): Promise<void> {
  const tenants = ISOLATION_TENANTS.slice(0, deliveries.length);
  const byHash = new Map(tenants.map((tenant) => [sha256(tenant.token as string), tenant]));
  const errors: unknown[] = [];
  const receiver = createReceiver({
    tenants: (hash) => byHash.get(hash),
    dedup: store,
    ordering: true,
    onError: (error) => errors.push(error),
  });
  const runs = new Map<string, string[]>(tenants.map((tenant) => [tenant.id, []]));
  const ran = (event: WebhookEvent & { type: 'article.sync' | 'article.trash' }) =>
    runs.get(event.tenant!.id)!.push(`${event.type}:${event.deliveryId}`);
  const handlers: WebhookHandlers = {
    'article.sync': (event) => {
      ran(event);
      return { publishedUrl: publishedUrl(event.tenant!.id, event.deliveryId!) };
    },
    'article.trash': (event) => void ran(event),
  };
  const models = tenants.map((tenant) => new TenantModel(tenant.id));
  for (const [r, round] of rounds.entries()) {
    const sent = round.flatMap((pick, t) => (pick === null ? [] : [{ t, delivery: deliveries[t]![pick]! }]));
    // Tenants send at once: a shared key would show as a 409, a duplicate or a stale answer.
    const answers = await Promise.all(
      sent.map(({ t, delivery }) => receiver.handle(signed(tenants[t]!, delivery), handlers)),
    );
    for (const [i, { t, delivery }] of sent.entries()) {
      const context = `round ${r}, tenant ${JSON.stringify(tenants[t]!.id)}, delivery ${JSON.stringify(delivery)}`;
      expect(answers[i], context).toEqual({ status: 200, body: models[t]!.expect(delivery) });
    }
  }
  for (const [t, tenant] of tenants.entries())
    expect(runs.get(tenant.id), `runs of ${tenant.id}`).toEqual(models[t]!.runs);
  expect(errors).toEqual([]);
}

/** Generated cases per store by default: small, as the suite runs once per store and client. */
export const TENANT_ISOLATION_RUNS = 25;

/**
 * Contract v4, "State is per tenant": two or three tenants with colliding delivery and article
 * ids, sync and trash at random timestamps, several tenants sending at once, through
 * `createReceiver({ tenants, dedup: store, ordering: true }).handle()`. Each tenant's answers
 * and handler runs must be exactly what its own history says: no tenant is ever answered
 * duplicate, stale or 409 because of another. Every case gets a fresh store.
 */
export function tenantIsolationContract(
  name: string,
  fresh: FreshTenantStore,
  { runs = TENANT_ISOLATION_RUNS }: { runs?: number } = {},
): void {
  describe(`${name}: tenant isolation (contract v4)`, () => {
    it('gives each tenant exactly its own dedup and ordering history, with colliding ids', async () => {
      const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };
      await fc.assert(
        fc.asyncProperty(scenarioArb, async (scenario) => runScenario(await fresh(), scenario)),
        // PROPERTY_BUDGET scales these runs too (the mutation run), never below one case.
        {
          numRuns: Math.max(1, Math.round(runs * BUDGET_SCALE)),
          examples: KNOWN_CASES.map((known) => [known]),
          ...seed,
        },
      );
    }, 120_000);
  });
}
