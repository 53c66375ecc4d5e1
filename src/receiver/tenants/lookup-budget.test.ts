import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../errors/webhook-error.js';
import { LookupBudget } from './lookup-budget.js';

/** A budget on a clock the test moves by hand. */
function budgetAt(perSecond: number) {
  const clock = { now: 1_000_000 };
  return { budget: new LookupBudget(perSecond, () => clock.now), clock };
}

/** How many lookups can be taken now, taking them all. */
function drain(budget: LookupBudget): number {
  let taken = 0;
  while (budget.left()) {
    budget.take();
    taken++;
  }
  return taken;
}

describe('LookupBudget: the cap on lookups of unknown token hashes', () => {
  it('starts full, then refuses with a 503 that names the cap and says tenants was not called', () => {
    const { budget } = budgetAt(5);
    expect(drain(budget)).toBe(5);
    expect(budget.left()).toBe(false);
    const refusal = (() => {
      try {
        budget.take();
      } catch (error) {
        return error;
      }
    })() as WebhookError;
    expect(refusal).toBeInstanceOf(WebhookError);
    expect(refusal).toMatchObject({ code: 'token_unavailable', status: 503 });
    expect(refusal.reason).toBe(
      'more than 5 lookups of unknown tokens in the last second (tenantLookupsPerSecond): ' +
        'answered 503 so the service retries, without calling tenants',
    );
  });

  it('refills at the cap a second, in proportion to the time passed, never past the cap', () => {
    const { budget, clock } = budgetAt(10);
    drain(budget);
    clock.now += 500;
    expect(drain(budget)).toBe(5);
    // 250 ms refill 2.5: two whole lookups, the half kept for the next refill.
    clock.now += 250;
    expect(drain(budget)).toBe(2);
    clock.now += 50;
    expect(drain(budget)).toBe(1);
    // A long quiet stretch fills the bucket to the cap, not beyond.
    clock.now += 60_000;
    expect(drain(budget)).toBe(10);
  });

  it('counts a refill from the last one, so time is not counted twice', () => {
    const { budget, clock } = budgetAt(10);
    drain(budget);
    clock.now += 100;
    expect(budget.left()).toBe(true);
    expect(budget.left()).toBe(true);
    expect(drain(budget)).toBe(1);
  });

  it('takes nothing away when the clock steps back', () => {
    const { budget, clock } = budgetAt(4);
    clock.now -= 5_000;
    expect(drain(budget)).toBe(4);
  });

  it('refuses under one whole lookup left', () => {
    const { budget, clock } = budgetAt(2);
    drain(budget);
    clock.now += 499;
    expect(budget.left()).toBe(false);
    clock.now += 1;
    expect(budget.left()).toBe(true);
  });
});
