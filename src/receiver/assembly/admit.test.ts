import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Admission, AdmittedRequest } from '../admission.js';
import { admittedLookup, settledAdmission } from './admit.js';
import { createReceiver } from './create-receiver.js';

// A token the head cannot settle (a source to read, a tenant to look up) is settled before the
// body: the adapter kit awaits settledAdmission (issue 45, defect 2). test/rotation/unread-bodies
// counts the bytes a real server reads; this pins each outcome of the settling itself.

const KNOWN = 'whk_admit_known_token_0123';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A `test` delivery signed with `token` now, as the service sends it: its head and its body. */
function head(token: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({ event: 'test', timestamp: Number(timestamp), article: null, profile: null });
  const mac = createHmac('sha256', token).update(`${timestamp}.${body}`).digest('hex');
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${mac}`,
    'x-service-delivery-id': `admit-${token}`,
    'x-service-event': 'test',
  };
  return { head: { method: 'POST', headers }, body };
}

function admitted(admission: Admission): AdmittedRequest {
  if (!admission.admitted) throw new Error(`refused on the head: ${admission.answer.status}`);
  return admission;
}

describe('settledAdmission: check 2 before the body, where the head could not settle it', () => {
  it('is undefined for a fixed token: the head settled it, and no promise is made', () => {
    const receiver = createReceiver({ token: KNOWN, logger: false });
    const { head: known } = head(KNOWN);
    expect(settledAdmission(admitted(receiver.admit(known)))).toBeUndefined();
  });

  it('admits a known token once the source is read, the same admission, settled once', async () => {
    const rejected: unknown[] = [];
    const receiver = createReceiver({ token: async () => [KNOWN], logger: false, onRejected: (e) => rejected.push(e) });
    const { head: known, body } = head(KNOWN);
    const admission = admitted(receiver.admit(known));
    const settling = settledAdmission(admission);
    expect(settling).toBeInstanceOf(Promise);
    // Settled once: a second ask while the first is under way gets nothing to wait for.
    expect(settledAdmission(admission)).toBeUndefined();
    const settled = await settling!;
    expect(settled).toBe(admission);
    expect(settledAdmission(admission)).toBeUndefined();
    // The match is the admission's now: its header lookup, and an HMAC to stream the body into.
    expect(admittedLookup(admission)?.('authorization')).toBe(`Bearer ${KNOWN}`);
    expect(admission.bodyHasher?.()).toBeDefined();
    expect(await admitted(settled).handle(body, { test: () => {} })).toEqual({ status: 200, body: { ok: true } });
    expect(rejected).toEqual([]);
  });

  it('refuses an unknown token before the body: 401, unauthenticated, reported once', async () => {
    const rejected: { code?: string }[] = [];
    const receiver = createReceiver({
      token: async () => [KNOWN],
      logger: false,
      onRejected: (error) => rejected.push(error as { code?: string }),
    });
    const { head: unknown } = head('whk_admit_unknown_token');
    const settled = await settledAdmission(admitted(receiver.admit(unknown)))!;
    expect(settled).toEqual({
      admitted: false,
      answer: { status: 401, body: { error: 'Invalid token' } },
      authenticated: false,
    });
    expect(rejected.map((error) => error.code)).toEqual(['invalid_token']);
  });

  it('refuses with 503 before the body when the source has no good list', async () => {
    const receiver = createReceiver({
      token: () => {
        throw new Error('vault down');
      },
      logger: false,
      onError: () => {},
    });
    const settled = await settledAdmission(admitted(receiver.admit(head(KNOWN).head)))!;
    expect(settled.admitted).toBe(false);
    expect(!settled.admitted && settled.answer).toEqual({ status: 503, body: { error: 'Token unavailable' } });
  });

  it('reads on during a rotation window: the unknown token is kept, which takes its body', async () => {
    const receiver = createReceiver({
      token: async () => ({ tokens: [KNOWN], rotatingUntil: Date.now() + 3_600_000 }),
      logger: false,
    });
    const { head: next, body } = head('whk_admit_next_token');
    const admission = admitted(receiver.admit(next));
    const settled = await settledAdmission(admission)!;
    expect(settled).toBe(admission);
    // Still unmatched, and not settled again: check 2 runs with the body, which is kept.
    expect(settledAdmission(admission)).toBeUndefined();
    expect(admission.bodyHasher?.()).toBeUndefined();
    const answer = await admitted(settled).handle(body, {});
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ error: 'Token rotation in progress' });
  });

  it('in tenant mode, looks the hash up before the body: a stranger is 401, a site admitted', async () => {
    const receiver = createReceiver({
      tenants: async (hash) => (hash === sha256(KNOWN) ? { id: 'site', token: KNOWN } : undefined),
      logger: false,
    });
    const stranger = await settledAdmission(admitted(receiver.admit(head('whk_admit_stranger').head)))!;
    expect(stranger.admitted).toBe(false);
    expect(!stranger.admitted && stranger.answer.status).toBe(401);
    const { head: site, body } = head(KNOWN);
    const admission = admitted(receiver.admit(site));
    const settled = await settledAdmission(admission)!;
    expect(settled).toBe(admission);
    expect((await admitted(settled).handle(body, { test: () => {} })).status).toBe(200);
  });

  it('is undefined for an admission another implementation made', () => {
    const foreign = { admitted: true } as unknown as AdmittedRequest;
    expect(settledAdmission(foreign)).toBeUndefined();
  });
});

describe('admit with a ledger (issue 48)', () => {
  it('refuses an unknown fixed token on the head, unless the ledger keeps refusals and could verify it later', async () => {
    const { memoryLedger } = await import('../../ledger/memory-ledger.js');
    const unknown = head('whk_admit_unknown_token_9876').head;
    for (const ledger of [undefined, memoryLedger()]) {
      const admission = createReceiver({ token: KNOWN, ledger, logger: false }).admit(unknown);
      expect(admission).toMatchObject({ admitted: false, answer: { status: 401 } });
    }
    const ledger = memoryLedger({ keepRefused: true });
    const keeping = createReceiver({ token: KNOWN, ledger, logger: false });
    const reading = admitted(keeping.admit(unknown));
    // Read on only to be kept: the head's lookup serves the kit, and no key hashes the body.
    expect(admittedLookup(reading)?.('x-service-event')).toBe('test');
    expect(reading.bodyHasher?.()).toBeUndefined();
    const bare = { method: 'POST', headers: { authorization: 'Bearer whk_admit_unknown_token_9876' } };
    expect(keeping.admit(bare)).toMatchObject({ admitted: false, answer: { status: 401 } });
  });
});
