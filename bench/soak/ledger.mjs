// The driver's ledger: every request and every answer, by delivery id. A status outside the
// set the contract gives for that kind of request is a breach the moment it is answered; what
// became of each id (a 200 or not) is what the judge compares with the recorded effects.

export function createLedger({ startedAt }) {
  const ids = new Map();
  const breaches = [];
  const counts = new Map();
  const latency = [];
  const ledger = {
    ids,
    breaches,
    counts,
    latency,
    skipped: 0,
    /** A request about to be sent (a redelivery reuses its delivery id's record). */
    open({ id, kind, tenant, allowed, legit }) {
      let record = ids.get(id);
      if (!record) {
        record = { id, kind, tenant, legit, ok: false, duplicates: 0, attempts: 0 };
        ids.set(id, record);
      }
      return { id, kind, allowed, legit, record, statuses: [] };
    },
    answered(entry, { status, ms, sentAt, duplicate, error }) {
      const { record, kind } = entry;
      record.attempts++;
      const key = `${kind} ${status ?? 'no answer'}${error ? ` ${error}` : ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (status === 200) {
        record.ok = true;
        if (duplicate) record.duplicates++;
      }
      // A slow upload's time is the sender's own trickle, not the receiver's answer.
      if (entry.legit && status !== null && kind !== 'slow-upload')
        latency.push({ minute: Math.floor((sentAt - startedAt) / 60_000), ms });
      // No answer at all is what a killed receiver or a slowloris gets; only answers are judged.
      if (status !== null && entry.allowed && !entry.allowed.has(status)) {
        breaches.push({
          type: 'wrong status',
          detail: `${kind} ${entry.id} answered ${status}${error ? ` "${error}"` : ''}; the contract gives ${[...entry.allowed].join(' or ')} (at +${((sentAt - startedAt) / 1000).toFixed(1)} s)`,
        });
      }
    },
  };
  return ledger;
}
