// What the driver sends each tick, drawn at random by weight: the traffic a real service sends
// (new deliveries, redeliveries of recent ones, `test` events, slow uploads) and hostile
// traffic. Every hostile request carries a delivery id starting `hostile-`, so an effect under
// such an id is a breach whatever the request was.

/** Kind → weight (per 1,000 requests). */
export const MIX = {
  new: 700,
  redelivery: 120,
  test: 40,
  'slow-upload': 10,
  'forged-signature': 30,
  'random-token': 30,
  'stale-timestamp': 25,
  'malformed-body': 25,
  'oversized-declared': 8,
  'oversized-body': 2,
  slowloris: 10,
};

/** Kinds the service sends: each must end in a 200 and an effect. */
export const LEGIT = new Set(['new', 'redelivery', 'test', 'slow-upload']);

/** Body sizes of legit article deliveries, by weight: mostly small, now and then 1 MiB. */
const SIZES = [
  [1024, 600],
  [4 * 1024, 250],
  [16 * 1024, 80],
  [64 * 1024, 40],
  [256 * 1024, 25],
  [1024 * 1024, 5],
];

function pick(random, table) {
  const total = table.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [value, weight] of table) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return table[table.length - 1][0];
}

export const pickKind = (random) => pick(random, Object.entries(MIX));
export const pickSize = (random) => pick(random, SIZES);

/** A small deterministic PRNG (mulberry32), so a seed replays the same mix and schedule. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
