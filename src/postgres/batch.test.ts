import { describe, expect, it } from 'vitest';
import { batched } from './batch.js';

// The batching of a step, without a database: which calls share a run, in what order, and
// what each call gets. The Postgres suites prove the statements themselves.

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recording(fail?: (items: readonly string[]) => Error | undefined) {
  const runs: string[][] = [];
  const step = batched<string, string>({
    key: (item) => item.split(':')[0]!,
    run: async (items) => {
      runs.push([...items]);
      const error = fail?.(items);
      if (error) throw error;
      return items.map((item) => `answer to ${item}`);
    },
  });
  return { runs, step };
}

describe('batched', () => {
  it('gives the calls of one turn one run, keys sorted, and each call its own answer', async () => {
    const { runs, step } = recording();
    const answers = await Promise.all([step('c:1'), step('a:2'), step('b:3')]);
    expect(runs).toEqual([['a:2', 'b:3', 'c:1']]);
    expect(answers).toEqual(['answer to c:1', 'answer to a:2', 'answer to b:3']);
  });

  it('runs a second call for one key in a run of its own, after the first', async () => {
    const { runs, step } = recording();
    const answers = await Promise.all([step('a:1'), step('b:1'), step('a:2'), step('a:3')]);
    expect(runs).toEqual([['a:1', 'b:1'], ['a:2'], ['a:3']]);
    expect(answers).toEqual(['answer to a:1', 'answer to b:1', 'answer to a:2', 'answer to a:3']);
  });

  it('gives calls of different turns different runs', async () => {
    const { runs, step } = recording();
    const first = step('a:1');
    await nextTurn();
    const second = step('b:1');
    expect(await Promise.all([first, second])).toEqual(['answer to a:1', 'answer to b:1']);
    expect(runs).toEqual([['a:1'], ['b:1']]);
  });

  it("fails each call of a failed run with the run's error, and no call of the next run", async () => {
    const broken = new Error('the statement failed');
    const { runs, step } = recording((items) => (items.includes('b:1') ? broken : undefined));
    const settled = await Promise.allSettled([step('a:1'), step('b:1'), step('a:2')]);
    expect(runs).toEqual([['a:1', 'b:1'], ['a:2']]);
    expect(settled).toEqual([
      { status: 'rejected', reason: broken },
      { status: 'rejected', reason: broken },
      { status: 'fulfilled', value: 'answer to a:2' },
    ]);
    expect(await step('b:2')).toBe('answer to b:2');
  });
});
