/** The part of a `pg` connection's EventEmitter the guard uses; pg-compatible clients may lack it. */
interface ErrorEvents {
  on?(event: 'error', listener: (error: unknown) => void): unknown;
  removeListener?(event: 'error', listener: (error: unknown) => void): unknown;
}

/** Keeps a `pg` connection's `'error'` events from ending the process while the store uses it. */
export interface ConnectionGuard {
  /**
   * Runs `task` with an `'error'` listener on the connection. It stays on when `task` fails:
   * a terminated backend first fails the running statement and only then closes the socket,
   * which `pg` reports as one more `'error'` event, a moment later.
   */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** What the connection emitted as `'error'`, if anything: it is then unusable. */
  readonly lost: unknown;
  /** Takes the listener off a connection that is healthy, before it goes back to its pool. */
  detach(): void;
}

/**
 * A `pg` Client emits `'error'` when its connection drops (a restart, a failover,
 * `pg_terminate_backend`), and an EventEmitter with no listener for it throws, which ends the
 * process. A Pool listens on its idle clients but not on one checked out, and a Client of the
 * user's may have no listener at all. So the store listens while a statement or transaction of
 * its own is open, and the failure reaches the receiver as a rejected statement (a 503).
 */
export function connectionGuard(connection: unknown): ConnectionGuard {
  const events = connection as ErrorEvents;
  let listening = false;
  let lost: unknown;
  const listener = (error: unknown) => {
    lost ??= error ?? new Error('the database connection failed');
  };
  const detach = () => {
    if (!listening || lost !== undefined || typeof events.removeListener !== 'function') return;
    events.removeListener('error', listener);
    listening = false;
  };
  return {
    get lost() {
      return lost;
    },
    detach,
    async run(task) {
      if (!listening && typeof events.on === 'function') {
        events.on('error', listener);
        listening = true;
      }
      const result = await task();
      detach();
      return result;
    },
  };
}
