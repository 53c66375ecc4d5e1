import { randomUUID } from 'node:crypto';
import type { DedupClaim, DedupStore, StoredAnswer } from 'webhook-cms-receiver';

/** Sends one raw Redis command, as `client.sendCommand(args)` or ioredis' `client.call(...args)` does. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

// Complete, renew and release only act while the record is this lease (or, for complete,
// gone): a lapsed lease another claim took over changes nothing.
const COMPLETE = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * A dedup store as a user writes one on Redis: `SET key lease NX PX leaseMs` claims, the
 * answer is kept under the same key for retentionMs. Correct on a client that sends what it
 * is given; over a client that drops `NX` (Powertools #5716) every claim wins.
 */
export function setNxStore(
  command: RedisCommand,
  options: { prefix: string; leaseMs: number; retentionMs: number },
): DedupStore {
  const key = (claim: DedupClaim) => `${options.prefix}${claim.deliveryId}`;
  const script = async (source: string, claim: DedupClaim, ...args: string[]) =>
    Number(await command(['EVAL', source, '1', key(claim), ...args]));
  return {
    leaseMs: options.leaseMs,
    async claim(claim) {
      const lease = randomUUID();
      const set = await command(['SET', key(claim), `lease:${lease}`, 'NX', 'PX', String(options.leaseMs)]);
      if (set === 'OK') return { state: 'claimed', lease };
      const value = await command(['GET', key(claim)]);
      if (typeof value === 'string' && value.startsWith('done:'))
        return { state: 'done', answer: JSON.parse(value.slice('done:'.length)) as StoredAnswer };
      return { state: 'in-progress' };
    },
    async renew(claim, lease) {
      return (await script(RENEW, claim, `lease:${lease}`, String(options.leaseMs))) === 1;
    },
    async complete(claim, lease, answer) {
      const done = `done:${JSON.stringify(answer)}`;
      return (await script(COMPLETE, claim, `lease:${lease}`, done, String(options.retentionMs))) === 1;
    },
    async release(claim, lease) {
      await script(RELEASE, claim, `lease:${lease}`);
    },
  };
}

/** A client wrapper with the Powertools #5716 defect: it drops the `NX` of every SET. */
export const droppingNx =
  (command: RedisCommand): RedisCommand =>
  (args) =>
    command(args[0] === 'SET' ? args.filter((arg) => arg !== 'NX') : args);
