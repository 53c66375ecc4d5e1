import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../setup/services.js';

/**
 * A PostgreSQL cluster of one test's own, on 127.0.0.1 and a fixed port, that the test may
 * stop and start again (the shared server of test/setup must stay up for the other suites).
 */
export interface PrivatePostgres {
  url: string;
  /** `pg_ctl stop -m immediate`: every connection drops at once, as when the server dies. */
  stop(): void;
  /** Starts it again on the same port and data, resolved once it accepts connections. */
  start(): void;
  /** Stops it and deletes its files. */
  destroy(): void;
}

/** Undefined when the server binaries are missing (the caller skips, saying so). */
export async function startPrivatePostgres(): Promise<PrivatePostgres | undefined> {
  const bin = ['/usr/local/bin', ...['17', '16', '15', '14'].map((v) => `/usr/lib/postgresql/${v}/bin`)].find(
    (dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')),
  );
  if (!bin) return undefined;
  // Postgres refuses to run as root: as root the cluster belongs to `postgres` (or `nobody`).
  const owner = userInfo().uid === 0 ? ownerName() : undefined;
  const as = (command: string, args: string[]) => {
    const result = owner
      ? spawnSync('runuser', ['-u', owner, '--', command, ...args], { encoding: 'utf8' })
      : spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args[0]} failed: ${result.stderr || result.stdout}`);
  };
  const dir = mkdtempSync('/tmp/wcr-pgboss-pg-');
  if (owner) {
    const uid = Number(spawnSync('id', ['-u', owner]).stdout.toString());
    const gid = Number(spawnSync('id', ['-g', owner]).stdout.toString());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const data = join(dir, 'data');
  as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = () => as(join(bin, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    destroy() {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownerName(): string {
  for (const name of ['postgres', 'nobody']) if (spawnSync('id', ['-u', name]).status === 0) return name;
  throw new Error('running as root and found neither a `postgres` nor a `nobody` user to run PostgreSQL as');
}
