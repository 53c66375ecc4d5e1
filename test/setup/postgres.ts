import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './services.js';

/** A Postgres the tests may use, or why there is none (then PGlite stands in where it can). */
export interface StartedPostgres {
  /** `postgres://…` of a real server, or undefined when none could be found or started. */
  url: string | undefined;
  /** Why there is no server, with how to get one: for skip messages. */
  reason?: string;
  stop(): Promise<void>;
}

export const HOW_TO_RUN_POSTGRES =
  'set DATABASE_URL=postgres://user@127.0.0.1:5432/db, or install PostgreSQL (Debian: apt-get install postgresql) ' +
  'so that the test setup starts a throwaway cluster itself';

/**
 * Finds a Postgres for the tests: `DATABASE_URL` when set (CI's `.ci/run` starts one);
 * otherwise, when the server binaries exist (`initdb`, `pg_ctl` on PATH, in /usr/local/bin or
 * /usr/lib/postgresql/<version>/bin), a throwaway cluster in a temp directory on 127.0.0.1
 * and a free port, trusting local connections, stopped and deleted by `stop()`. Postgres
 * refuses to run as root, so as root the cluster belongs to the `postgres` user (or `nobody`).
 * With neither, `url` is undefined and `reason` says how to get one.
 */
export async function startPostgres(): Promise<StartedPostgres> {
  const given = process.env.DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  const bin = binDir();
  if (!bin)
    return {
      url: undefined,
      reason: `no PostgreSQL server binaries found: ${HOW_TO_RUN_POSTGRES}`,
      stop: async () => {},
    };
  const owner = clusterOwner();
  const dir = mkdtempSync('/tmp/wcr-postgres-');
  const data = join(dir, 'data');
  const stopCluster = () => {
    as(owner, join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (owner) {
      chownSync(dir, owner.uid, owner.gid);
      chmodSync(dir, 0o700);
    }
    run(owner, join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    run(owner, join(bin, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']);
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop: async () => stopCluster() };
  } catch (error) {
    stopCluster();
    throw error;
  }
}

function binDir(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl']).stdout?.toString().trim();
  const candidates = [
    onPath ? join(onPath, '..') : '',
    '/usr/local/bin',
    ...versionDirs('/usr/lib/postgresql').map((version) => `/usr/lib/postgresql/${version}/bin`),
  ];
  return candidates.find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** Installed major versions, newest first. */
function versionDirs(root: string): string[] {
  try {
    return readdirSync(root).sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

interface Owner {
  name: string;
  uid: number;
  gid: number;
}

/** Undefined when not root: the cluster is then simply ours. */
function clusterOwner(): Owner | undefined {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const ids = spawnSync('id', ['-u', name]);
    if (ids.status !== 0) continue;
    const uid = Number(ids.stdout.toString().trim());
    const gid = Number(spawnSync('id', ['-g', name]).stdout.toString().trim());
    return { name, uid, gid };
  }
  throw new Error('running as root and found neither a `postgres` nor a `nobody` user to run PostgreSQL as');
}

function as(owner: Owner | undefined, command: string, args: string[]) {
  return owner
    ? spawnSync('runuser', ['-u', owner.name, '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
}

function run(owner: Owner | undefined, command: string, args: string[]): void {
  const result = as(owner, command, args);
  if (result.status !== 0) {
    throw new Error(`${command} ${args[0] ?? ''} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}
