/** What a {@link batched} step is made from. */
export interface BatchOptions<I, O> {
  /** The row an item writes: two items of one key never share a statement. */
  key: (item: I) => string;
  /** One statement for all of `items` (distinct keys, sorted by key); resolves to their answers, in order. */
  run: (items: readonly I[]) => Promise<readonly O[]>;
  /**
   * Whether a failed statement of several items is sent again one item each: true when the
   * database refused it (nothing was written), so one item's bad data or lock wait fails that
   * item alone, as a statement of its own would have.
   */
  alone: (error: unknown) => boolean;
}

type Waiting<I, O> = { item: I; resolve: (answer: O) => void; reject: (error: unknown) => void };

/**
 * The next turn of the event loop, after the I/O already read (where the host has one: Node,
 * Bun; elsewhere the end of this task). Taken as the module loads, so fake timers a test
 * installs later do not hold a claim.
 */
const nextTurn: (work: () => void) => void = (() => {
  const immediate = (globalThis as { setImmediate?: (work: () => void) => unknown }).setImmediate;
  return immediate ? (work) => void immediate(work) : queueMicrotask;
})();

/**
 * A step that the deliveries calling it in the same turn of the event loop share: one
 * statement for all of them. At 64 concurrent deliveries Postgres parsed, planned and
 * committed a statement per claim and per completion, several times the CPU of the same rows
 * written by one statement per turn (BENCHMARKS.md). Two calls for one key in a turn go in
 * separate statements (an upsert writes a row once), which Postgres orders on the row's lock
 * as it orders any two concurrent statements; keys are sorted, so two statements lock the
 * rows they share in the same order and never deadlock.
 */
export function batched<I, O>(options: BatchOptions<I, O>): (item: I) => Promise<O> {
  let waiting: Waiting<I, O>[] = [];
  let scheduled = false;

  const start = (items: readonly I[]): Promise<readonly O[]> => {
    try {
      return options.run(items);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const settle = (calls: readonly Waiting<I, O>[], running: Promise<readonly O[]>): Promise<void> =>
    running.then(
      (answers) => {
        for (const [index, call] of calls.entries()) call.resolve(answers[index]!);
      },
      (error: unknown) => {
        if (calls.length > 1 && options.alone(error)) {
          return Promise.all(calls.map((call) => settle([call], start([call.item])))).then(() => {});
        }
        for (const call of calls) call.reject(error);
      },
    );

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
    schedule();
    const calls = [...taken.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, call]) => call);
    void settle(calls, start(calls.map((call) => call.item)));
  };

  const schedule = () => {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    nextTurn(flush);
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
