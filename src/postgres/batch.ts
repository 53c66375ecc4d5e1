/** What a {@link batched} step is made from. */
export interface BatchOptions<I, O> {
  /** The row an item writes: two items of one key never share a statement. */
  key: (item: I) => string;
  /** One statement for all of `items` (distinct keys, sorted by key); resolves to their answers, in order. */
  run: (items: readonly I[]) => Promise<readonly O[]>;
}

type Waiting<I, O> = { item: I; resolve: (answer: O) => void; reject: (error: unknown) => void };

/** The next turn of the event loop, after the I/O already read: where the host has one. */
const nextTurn: (work: () => void) => void = (() => {
  const immediate = (globalThis as { setImmediate?: (work: () => void) => unknown }).setImmediate;
  return immediate ? (work) => void immediate(work) : queueMicrotask;
})();

/**
 * A step that the deliveries calling it in the same turn of the event loop share: one
 * statement for all of them. At 64 concurrent deliveries Postgres parsed, planned and
 * committed a statement per claim and per completion, which cost it about ten times the CPU
 * of the same rows written by one statement per turn (BENCHMARKS.md). Two calls for one key
 * in a turn go in separate statements (an upsert may write a row once), which Postgres orders
 * on the row's lock as it orders any two concurrent statements; keys are sorted, so two
 * statements lock the rows they share in the same order and never deadlock. A failed
 * statement fails each of its calls with its error.
 */
export function batched<I, O>(options: BatchOptions<I, O>): (item: I) => Promise<O> {
  let waiting: Waiting<I, O>[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const taken = new Map<string, Waiting<I, O>>();
    const later: Waiting<I, O>[] = [];
    for (const call of waiting) {
      const key = options.key(call.item);
      if (taken.has(key)) later.push(call);
      else taken.set(key, call);
    }
    waiting = later;
    if (later.length > 0) schedule();
    const calls = [...taken.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, call]) => call);
    options.run(calls.map((call) => call.item)).then(
      (answers) => {
        for (const [index, call] of calls.entries()) call.resolve(answers[index]!);
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    nextTurn(flush);
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
