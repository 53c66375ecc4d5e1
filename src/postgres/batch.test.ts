import { describe, expect, it } from 'vitest';
import { batched } from './batch.js';

// The sharing of a step's statements, without a database: which calls share a run, in what
// order, and what each call gets. The Postgres suites prove the statements themselves.

/** A step whose runs the test releases one by one; an item named `bad…` fails its run. */
function gated(options: { alone?: (error: unknown) => boolean; throws?: boolean } = {}) {
  const runs: string[][] = [];
  const gates: Array<() => void> = [];
  const step = batched<string, string>({
    key: (item) => item.split(':')[0]!,
    alone: options.alone ?? (() => false),
    run: (items) => {
      if (options.throws) throw new Error('thrown before a statement was sent');
      runs.push([...items]);
      return new Promise((resolve, reject) => {
        gates.push(() => {
          const bad = items.find((item) => item.startsWith('bad'));
          if (bad) reject(Object.assign(new Error(`refused ${bad}`), { code: '22P05' }));
          else resolve(items.map((item) => `answer to ${item}`));
        });
      });
    },
  });
  const release = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    for (const gate of gates.splice(0)) gate();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { runs, step, release };
}

describe('batched', () => {
  it('gives the calls of one turn one run, keys sorted, each call its own answer, and a later turn another run', async () => {
    const { runs, step, release } = gated();
    const first = [step('c:1'), step('a:1'), step('b:1')];
    await new Promise((resolve) => setImmediate(resolve));
    const second = step('d:1');
    await release();
    await release();
    expect(runs).toEqual([['a:1', 'b:1', 'c:1'], ['d:1']]);
    expect(await Promise.all([...first, second])).toEqual(
      ['c:1', 'a:1', 'b:1', 'd:1'].map((item) => `answer to ${item}`),
    );
  });

  it('runs a second call for one key in a run of its own', async () => {
    const { runs, step, release } = gated();
    const answers = Promise.all([step('a:1'), step('b:1'), step('a:2')]);
    await release();
    await release();
    expect(runs).toEqual([['a:1', 'b:1'], ['a:2']]);
    expect(await answers).toEqual(['answer to a:1', 'answer to b:1', 'answer to a:2']);
  });

  it('sends each item of a refused run again alone, so only the faulty one fails', async () => {
    const { runs, step, release } = gated({ alone: (error) => (error as { code?: string }).code === '22P05' });
    const settled = Promise.allSettled([step('a:1'), step('bad:1'), step('c:1')]);
    await release();
    await release();
    expect(runs).toEqual([['a:1', 'bad:1', 'c:1'], ['a:1'], ['bad:1'], ['c:1']]);
    expect(await settled).toEqual([
      { status: 'fulfilled', value: 'answer to a:1' },
      { status: 'rejected', reason: expect.objectContaining({ message: 'refused bad:1' }) },
      { status: 'fulfilled', value: 'answer to c:1' },
    ]);
  });

  it('fails every call of a run the database did not refuse (a lost connection), and of a run that throws', async () => {
    const { runs, step, release } = gated();
    const settled = Promise.allSettled([step('a:1'), step('bad:1')]);
    await release();
    expect(runs).toEqual([['a:1', 'bad:1']]);
    expect((await settled).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const throwing = gated({ throws: true });
    const thrown = await Promise.allSettled([throwing.step('a:1'), throwing.step('b:1')]);
    expect(thrown.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await Promise.allSettled([throwing.step('c:1')])).toMatchObject([{ status: 'rejected' }]);
  });
});
