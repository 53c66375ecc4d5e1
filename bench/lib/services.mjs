// Throwaway Redis, Redis Cluster and Postgres servers for the store rows, started the way the
// test setup starts them (test/setup/services.ts, postgres.ts, test/redis/redis-cluster.ts),
// or the ones the environment names: REDIS_URL, REDIS_CLUSTER_NODES (host:port,…), DATABASE_URL.
// Each start answers { url | nodes, pids, stop() } or { missing: 'why' }, never throws for a missing
// binary; `pids` are the server processes started here (none for a server the environment names).

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const has = (binary) => spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server on port ${port} exited with ${child.exitCode}`);
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

async function redisServer(extra = []) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wcr-bench-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn('redis-server', [...args, ...extra], { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `redis://127.0.0.1:${port}`, pids: [child.pid], stop };
}

/** One Redis: REDIS_URL, or a fresh `redis-server`. */
export async function startRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  if (!has('redis-server')) return { missing: 'redis-server is not installed and REDIS_URL is unset' };
  return redisServer();
}

/** A 3-master Redis Cluster: REDIS_CLUSTER_NODES, or three fresh nodes joined by `redis-cli --cluster create`. */
export async function startRedisCluster() {
  const given = process.env.REDIS_CLUSTER_NODES;
  if (given) {
    const nodes = given.split(',').map((address) => {
      const [host, port] = address.trim().split(':');
      return { url: `redis://${host}:${port}` };
    });
    return { nodes, stop: async () => {} };
  }
  if (!has('redis-server') || !has('redis-cli'))
    return { missing: 'redis-server and redis-cli are not installed and REDIS_CLUSTER_NODES is unset' };
  const started = [];
  const stop = () => Promise.all(started.map((node) => node.stop()));
  try {
    for (let i = 0; i < 3; i++) {
      const busPort = await freePort();
      started.push(
        await redisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-port',
          String(busPort),
        ]),
      );
    }
    const addresses = started.map(({ port }) => `127.0.0.1:${port}`);
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}${create.stderr}`);
    const deadline = Date.now() + 20_000;
    for (const { port } of started) {
      for (;;) {
        const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout;
        if (/cluster_state:ok/.test(info) && /cluster_known_nodes:3\b/.test(info)) break;
        if (Date.now() > deadline) throw new Error(`the cluster node on port ${port} never came up`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return { nodes: started.map(({ url }) => ({ url })), pids: started.flatMap(({ pids }) => pids), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function postgresBin() {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl']).stdout?.toString().trim();
  return [onPath ? join(onPath, '..') : '', '/usr/local/bin'].find(
    (dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')),
  );
}

/** Postgres refuses to run as root: as root the cluster belongs to `postgres` (or `nobody`). */
function clusterOwner() {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const ids = spawnSync('id', ['-u', name]);
    if (ids.status !== 0) continue;
    return {
      name,
      uid: Number(ids.stdout.toString().trim()),
      gid: Number(spawnSync('id', ['-g', name]).stdout.toString().trim()),
    };
  }
  return undefined;
}

function as(owner, command, args) {
  return owner
    ? spawnSync('runuser', ['-u', owner.name, '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
}

/** A Postgres: DATABASE_URL, or a throwaway cluster (fsync off) on a free port. */
export async function startPostgres() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const bin = postgresBin();
  if (!bin) return { missing: 'no PostgreSQL server binaries (initdb, pg_ctl) and DATABASE_URL is unset' };
  const owner = clusterOwner();
  const dir = mkdtempSync('/tmp/wcr-bench-postgres-');
  const data = join(dir, 'data');
  const stop = async () => {
    as(owner, join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (owner) {
      chownSync(dir, owner.uid, owner.gid);
      chmodSync(dir, 0o700);
    }
    const run = (command, args) => {
      const result = as(owner, command, args);
      if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
    };
    run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const settings = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off'];
    settings.push('-c synchronous_commit=off', '-c full_page_writes=off');
    run(join(bin, 'pg_ctl'), ['-D', data, '-o', settings.join(' '), '-l', join(dir, 'server.log'), '-w', 'start']);
    // The postmaster's pid: its backends are its children, whose CPU time the concurrency bench sums.
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, pids: [postmaster], stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
