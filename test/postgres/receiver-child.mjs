// A receiver in its own process, for the transactional tests that kill a process or need two:
// the bundled sources (BUNDLE) with postgresDedupStore in transactional mode over pg or
// postgres (CLIENT). It handles DELIVERY (signed by the test) COPIES times at once, then
// prints `answers <json counts>` and exits. Its handler writes one row to EFFECTS through
// `tx`, prints `wrote <delivery id>`, and with BEHAVIOUR=hang never returns.
const { BUNDLE, CLIENT, DATABASE_URL, TABLE, EFFECTS, TOKEN, DELIVERY, COPIES, BEHAVIOUR, NAME } = process.env;
const { createReceiver, postgresDedupStore } = await import(BUNDLE);

const db =
  CLIENT === 'postgres'
    ? (await import('postgres')).default(DATABASE_URL, { max: 20, onnotice: () => {} })
    : new (await import('pg')).default.Pool({ connectionString: DATABASE_URL, max: 20 });
const receiver = createReceiver({
  token: TOKEN,
  dedup: postgresDedupStore(db, { table: TABLE, transactional: true }),
  onError: (error) => process.stderr.write(`${NAME}: ${error.message}\n`),
});

const handlers = {
  'article.sync': async (event, { tx }) => {
    const text = `INSERT INTO ${EFFECTS} (delivery, note) VALUES ($1, $2)`;
    const params = [event.deliveryId, NAME];
    await (CLIENT === 'postgres' ? tx.unsafe(text, params) : tx.query(text, params));
    process.stdout.write(`wrote ${event.deliveryId}\n`);
    if (BEHAVIOUR === 'hang') await new Promise(() => {}); // until the test kills the process
    await new Promise((resolve) => setTimeout(resolve, 50)); // lets the copies overlap
  },
};

const delivery = JSON.parse(DELIVERY);
const answers = await Promise.all(
  Array.from({ length: Number(COPIES ?? 1) }, () => receiver.handle(delivery, handlers)),
);
const counts = {};
for (const { status, body } of answers) {
  const kind = status === 200 ? (body.duplicate ? '200 duplicate' : '200') : String(status);
  counts[kind] = (counts[kind] ?? 0) + 1;
}
process.stdout.write(`answers ${JSON.stringify(counts)}\n`);
await (CLIENT === 'postgres' ? db.end() : db.end());
