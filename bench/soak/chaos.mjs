// The chaos schedule, spread over the run and replayable from the seed: SIGKILL of a receiver or
// worker at random intervals (each restarted at once), restarts of Redis and Postgres, a token
// rotation with its window, a tenant added and one removed (with --tenants), and a clock step
// of a few seconds there and back. Nothing is killed in the last tenth, so the run drains
// cleanly. The slots numbered 0 are killed only in the first fifth: each kind of process then
// has one that is warm (its code optimised, its bounded caches full) before the last half, the
// half its memory slope is fitted on. Killed later, a fresh process's warm-up read as a leak.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CLOCK_STEP_MS = 4_000;
/** Until this fraction of the run every slot may be killed; after it, only those numbered 1. */
export const SPARE_AFTER = 0.2;
/**
 * The age, as a fraction of the run, a process must have reached at the half for its heap slope
 * to be judged. A slot numbered 0 is restarted by SPARE_AFTER at the latest, so it is at least
 * 0.3 of the run old at the half; 0.25 leaves its restart time to spare.
 */
export const JUDGED_AGE = 0.25;

/** The slots a kill may pick `elapsedMs` into a run of `durationMs`. */
export const killPool = (slots, { elapsedMs, durationMs }) =>
  elapsedMs < durationMs * SPARE_AFTER ? slots : slots.filter((slot) => slot.name.endsWith('-1'));

export function runChaos({ durationMs, slots, services, world, traffic, config, random, setClock, log }) {
  const events = [];
  const at = (fraction, what) => events.push(sleep(durationMs * fraction).then(what));

  const kills = (async () => {
    const mean = Math.min(Math.max(durationMs / 6, 5_000), 300_000);
    const started = Date.now();
    for (;;) {
      const wait = mean * (0.5 + random());
      // Never sleeping past the last tenth: the run's end does not wait for a kill it will not do.
      if (Date.now() - started + wait > durationMs * 0.9) return;
      await sleep(wait);
      const pool = killPool(slots, { elapsedMs: Date.now() - started, durationMs });
      const slot = pool[Math.floor(random() * pool.length)];
      log(`SIGKILL ${slot.name}`);
      await slot.kill().then(
        () => log(`${slot.name} restarted`),
        (error) => log(`${slot.name} did not restart: ${error.message}`),
      );
    }
  })();

  const restartable = services.filter((service) => service.restart);
  restartable.forEach((service, i) => {
    const fractions = restartable.length === 1 ? [0.3, 0.7] : [[0.3], [0.7]][i];
    // One restart at a time: DynamoDB Local takes tens of seconds to come back on a loaded
    // machine, and a second kill during the first start would leave two JVMs on one port.
    let previous = Promise.resolve();
    for (const fraction of fractions) {
      at(fraction, () => {
        previous = previous.then(async () => {
          log(`restart ${service.name}`);
          await service.restart();
          log(`${service.name} back`);
        });
        return previous;
      });
    }
  });
  for (const service of services.filter((s) => !s.restart))
    log(`${service.name} not restarted: ${service.why ?? 'given by the environment'}`);

  const holdMs = Math.min(Math.max(durationMs * 0.06, 3_000), 60_000);
  at(0.35, () => world.rotate({ holdMs, log }));
  at(0.45, () => {
    log(`clock step +${CLOCK_STEP_MS / 1000} s`);
    setClock(CLOCK_STEP_MS);
  });
  at(0.8, () => {
    log(`clock step back by ${CLOCK_STEP_MS / 1000} s`);
    setClock(0);
  });
  if (world.tenantMode) {
    at(0.15, () => world.addTenant({ log }));
    at(0.55, async () => {
      const drainMs = 17_000 * config.retryScale + 11_000;
      const gone = await world.removeTenant({ drainMs, log });
      if (gone) for (let i = 0; i < 5; i++) traffic.sendHostile('removed-tenant');
    });
  }
  return Promise.all([kills, ...events]);
}
