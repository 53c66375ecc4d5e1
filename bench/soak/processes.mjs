// The soak's child processes, one slot each (receiver-0, receiver-1, worker-0, worker-1): fork
// with IPC and --expose-gc, wait for `ready`, SIGKILL and restart on the same port, and collect
// what the children send (memory samples, log lines, open handles). A slot remembers every
// process it ran, so the memory slope is fitted per process, never across a restart.

import { fork } from 'node:child_process';

/** What every slot reports into: samples per process, log lines counted by text. */
export function createTelemetry() {
  return { samples: [], logs: new Map(), handles: new Map(), crashes: [] };
}

/** A log line with its ids, hex, times and counts folded, so equal lines count as one. */
const fold = (text) =>
  text
    .split('\n')[0]
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/(hostile-|d-|test-)?[0-9a-f][0-9a-f-]{15,}/g, '<id>')
    .replace(/\b\d{4,}\b/g, 'N');

function onMessage(telemetry, message) {
  if (message?.type === 'sample') telemetry.samples.push(message);
  else if (message?.type === 'log') {
    const key = `${message.level} ${fold(message.message)}`;
    telemetry.logs.set(key, (telemetry.logs.get(key) ?? 0) + 1);
  } else if (message?.type === 'handles') telemetry.handles.set(message.name, message.resources);
}

/**
 * A slot: `start()`, `kill()` (SIGKILL, then a fresh process), `stop()` (SIGTERM), `send()`.
 * `env` is fixed for the slot's lifetime; `extraEnv()` is read at each start (the clock offset).
 */
export function createSlot({ name, script, config, port, telemetry, extraEnv = () => ({}) }) {
  let child;
  let starts = 0;
  let expected = false;
  const launch = () =>
    new Promise((resolve, reject) => {
      starts++;
      expected = false;
      child = fork(script, [], {
        execArgv: ['--expose-gc'],
        env: {
          ...process.env,
          SOAK_CONFIG: JSON.stringify(config),
          SOAK_NAME: name,
          SOAK_PORT: String(port ?? 0),
          ...extraEnv(),
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const current = child;
      // A send racing a kill fails with EPIPE; the exit handler below deals with the death.
      current.on('error', () => {});
      let ready = false;
      const timer = setTimeout(() => reject(new Error(`${name} was not ready within 60 s`)), 60_000);
      current.on('message', (message) => {
        onMessage(telemetry, message);
        if (message?.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      });
      current.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`${name} exited with ${signal ?? code} before it was ready`));
        else if (!expected && current === child) {
          // Nothing here kills without saying so: an exit on its own is a crash, and a breach.
          telemetry.crashes.push({ name, t: Date.now(), how: `exited on its own (${signal ?? `exit code ${code}`})` });
          start().catch(() => {});
        }
      });
    });
  /** Up to three tries: a start can fail while a store restarts under it. */
  const start = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await launch();
      } catch (error) {
        if (attempt === 3) {
          // A process that cannot come back (its store refusing it at start, say) is a breach too.
          telemetry.crashes.push({ name, t: Date.now(), how: `no restart after 3 tries: ${error.message}` });
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  };
  const exit = (signal) => {
    expected = true;
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return Promise.resolve();
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill(signal);
    return exited;
  };
  return {
    name,
    start,
    get starts() {
      return starts;
    },
    send: (message) => {
      // With a callback, a channel that broke under a SIGKILL a moment ago (EPIPE) is an error
      // passed here, not an 'error' event that would end the driver.
      if (child?.connected) child.send(message, () => {});
    },
    /** SIGKILL mid-traffic, then the same slot again: a crashed and restarted process. */
    async kill() {
      await exit('SIGKILL');
      await start();
    },
    /** Asks for open handles (answered into telemetry), then SIGTERM. */
    async stop() {
      if (child?.connected) {
        child.send({ type: 'handles' }, () => {});
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const stopped = exit('SIGTERM');
      const timer = setTimeout(() => exit('SIGKILL'), 10_000);
      await stopped;
      clearTimeout(timer);
    },
  };
}
