// The verdict on what became of every delivery: each one answered 200 has its effect exactly
// once (transactional store) or at least once (the others); nothing hostile has an effect; no
// effect belongs to a delivery the driver never sent; fewer are given up than accepted. Wrong statuses were judged as they came
// (ledger.mjs); memory is judged in run.mjs.

export function judgeEffects({ ledger, effects, exactlyOnce }) {
  const breaches = [];
  const figures = { accepted: 0, gaveUp: 0, repeated: 0, hostile: 0, duplicatesAnswered: 0 };
  for (const record of ledger.ids.values()) {
    const count = effects.get(record.id) ?? 0;
    if (!record.legit) {
      figures.hostile++;
      if (count > 0)
        breaches.push({ type: 'hostile effect', detail: `${record.kind} ${record.id} has ${count} effect(s)` });
      continue;
    }
    figures.duplicatesAnswered += record.duplicates;
    if (record.ok) figures.accepted++;
    else figures.gaveUp++;
    if (record.ok && count === 0)
      breaches.push({
        type: 'lost',
        detail: `${record.kind} ${record.id} (tenant ${record.tenant}) answered 200, no effect`,
      });
    if (count > 1) {
      figures.repeated++;
      if (exactlyOnce)
        breaches.push({
          type: 'effect twice',
          detail: `${record.kind} ${record.id} has ${count} effects (exactly once expected)`,
        });
    }
  }
  for (const id of effects.keys()) {
    if (!ledger.ids.has(id)) breaches.push({ type: 'unknown effect', detail: `${id} was never sent` });
  }
  // Chaos makes a few deliveries run out of retries; most of them doing so is a receiver that
  // cannot accept anything (a store it cannot use, say), which must not pass for a clean run.
  if (figures.gaveUp > figures.accepted)
    breaches.push({
      type: 'given up',
      detail: `${figures.gaveUp} deliveries given up after retries against ${figures.accepted} answered 200`,
    });
  return { breaches, figures };
}

/** Ids answered 200 that have no effect yet: what queue mode is still working through. */
export function missingEffects(ledger, effects) {
  let missing = 0;
  for (const record of ledger.ids.values()) if (record.legit && record.ok && !effects.has(record.id)) missing++;
  return missing;
}
