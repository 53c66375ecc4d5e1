// handle() at 1 KiB in tenant mode (issue 36, item 6): what finding the site costs per delivery,
// against single-token handle(). Rows: the resolver's answer cached (every delivery after a
// site's first), the cache expired (the resolver is called and the tenant's prepared tokens
// are reused), and a token seen for the first time (the resolver is called and the token's
// HMAC key prepared). The resolver is async and answers from a Map: a database's own time is
// not in these numbers, only the receiver's.
// Runs inside `npm run bench`, or alone: `node bench/suites/tenants.mjs [--quick] [--rounds=N] [--batch-ms=N]`.

import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createReceiver } from 'webhook-cms-receiver';
import { articleBody, TOKEN } from '../lib/deliveries.mjs';
import { compare, quartiles } from '../lib/measure.mjs';
import { formatRatio, machineLine, ratioTable, table } from '../lib/report.mjs';

export const TENANT_ROWS = {
  single: 'handle(), one token',
  hit: 'tenants, cache hit',
  expired: 'tenants, cache expired',
  first: 'tenants, token seen first',
};

// Each batch builds two pools of signed deliveries and four receivers (untimed); a full GC
// after that keeps their garbage from being collected, and charged, inside the next timed batch.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

const TEMPLATE_ID = '00000000-0000-4000-8000-000000000000';
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

function signed(body, token, timestamp, deliveryId) {
  const bytes = Buffer.from(body);
  const signature = createHmac('sha256', token).update(`${timestamp}.`).update(bytes).digest('hex');
  return {
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      authorization: `Bearer ${token}`,
      'x-service-timestamp': timestamp,
      'x-service-signature': `sha256=${signature}`,
      'x-service-event': 'article.sync',
      'x-service-delivery-id': deliveryId,
    },
    body: bytes,
  };
}

/**
 * A batch's input: `count` fresh deliveries signed with the one site's token, the same many
 * signed each with a token of its own (a site per delivery), and fresh receivers, so every
 * contender starts each batch with an empty store and cache, as the others do.
 */
function batch(size, count) {
  const template = articleBody(size, { id: TEMPLATE_ID });
  const { profile } = JSON.parse(template);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const shared = new Array(count);
  const distinct = new Array(count);
  const sites = new Map([
    [sha256(TOKEN), { id: 'site-0', token: TOKEN, profileId: profile.id, domain: profile.domain }],
  ]);
  for (let i = 0; i < count; i++) {
    const id = randomUUID(); // as long as TEMPLATE_ID, so the size stays exact
    const body = template.replace(TEMPLATE_ID, id);
    shared[i] = signed(body, TOKEN, timestamp, id);
    const token = `whk_${randomBytes(16).toString('hex')}`;
    sites.set(sha256(token), { id: `site-${i + 1}`, token, profileId: profile.id, domain: profile.domain });
    distinct[i] = signed(body, token, timestamp, id);
  }
  const calls = { count: 0 };
  const tenants = async (hash) => {
    calls.count++;
    return sites.get(hash);
  };
  collectGarbage();
  // The expired row's clock moves past tokenCacheMs before each delivery (bench time, not wall time).
  const clock = { skew: 0 };
  return {
    shared,
    distinct,
    calls,
    clock,
    receivers: {
      single: createReceiver({ token: TOKEN }),
      hit: createReceiver({ tenants }),
      expired: createReceiver({ tenants, tokenCacheMs: 1, now: () => Date.now() + clock.skew }),
      first: createReceiver({ tenants, tenantLookupsPerSecond: Number.MAX_SAFE_INTEGER }),
    },
  };
}

const handlers = { 'article.sync': () => {} };

function contender(row, deliveries, before) {
  return {
    name: TENANT_ROWS[row],
    async: true,
    fn: async (input, i) => {
      before?.(input);
      const answer = await input.receivers[row].handle(input[deliveries][i], handlers);
      if (answer.status !== 200 || answer.body.duplicate)
        throw new Error(`${TENANT_ROWS[row]} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer;
    },
  };
}

/** The rows at 1 KiB, interleaved, and the resolver's calls per delivery in each (an untimed pass). */
export async function tenantsSuite({ rounds, batchMs, size = 1024 }) {
  const contenders = [
    contender('single', 'shared'),
    contender('hit', 'shared'),
    contender('expired', 'shared', (input) => void (input.clock.skew += 2)),
    contender('first', 'distinct'),
  ];
  const results = await compare(contenders, { rounds, batchMs, input: (count) => batch(size, count) });
  const calls = {};
  for (const [index, row] of Object.keys(TENANT_ROWS).entries()) {
    const input = batch(size, 200);
    for (let i = 0; i < 200; i++) await contenders[index].fn(input, i);
    calls[TENANT_ROWS[row]] = input.calls.count / 200;
  }
  return { rows: [{ label: `${size / 1024} KiB`, size, results }], calls };
}

/** The ratio table, then per row the spread of its per-round ratios and its resolver calls per delivery. */
export function tenantsReport({ rows, calls }) {
  const detail = table(
    ['row', 'rounds p25–p75', 'resolver calls per delivery'],
    rows[0].results.map((result) => [
      result.name,
      quartiles(result.ratios).map(formatRatio).join('–'),
      calls[result.name].toFixed(3),
    ]),
  );
  return `${ratioTable(rows)}\n\n${detail}`;
}

// Alone: `node bench/suites/tenants.mjs [--quick] [--rounds=N] [--batch-ms=N]` prints this table only (build dist/ first).
if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length));
  const batchMs = Number(process.argv.find((arg) => arg.startsWith('--batch-ms='))?.slice('--batch-ms='.length));
  const run = quick
    ? { rounds: 5, batchMs: 10 }
    : { rounds: rounds > 0 ? rounds : 21, batchMs: batchMs > 0 ? batchMs : 25 };
  const result = await tenantsSuite(run);
  console.log(`Machine: ${machineLine()}, ${run.rounds} rounds${quick ? ' (--quick)' : ''}\n`);
  console.log(tenantsReport(result));
}
