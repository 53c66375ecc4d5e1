import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { describe } from 'vitest';
import type { RedisClientLike } from 'webhook-cms-receiver/redis';
import { freePort, waitForPort } from '../setup/services.js';

/** One master of a running test cluster. */
export interface ClusterNode {
  host: string;
  port: number;
  url: string;
}

/** A Redis Cluster on 127.0.0.1, and how to stop it. */
export interface RunningCluster {
  nodes: ClusterNode[];
  stop(): Promise<void>;
  /**
   * Kills the master on `port` (SIGKILL) and starts it again on the same port, directory and
   * cluster config, resolved once the cluster serves again. Only on a cluster this process
   * started (undefined for REDIS_CLUSTER_NODES); it keeps its data only when started `durable`.
   */
  restart?(port: number): Promise<void>;
}

const has = (binary: string) => spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;

/**
 * Where a cluster comes from: `REDIS_CLUSTER_NODES` (comma-separated `host:port` of masters
 * someone else started, e.g. CI), else three nodes this process starts, else nothing.
 */
const given = process.env.REDIS_CLUSTER_NODES;
const canStart = has('redis-server') && has('redis-cli');
const HOW_TO_RUN =
  'skipped: redis-server and redis-cli are not installed (apt-get install redis-server), and REDIS_CLUSTER_NODES is unset';
if (!given && !canStart) console.warn(`Redis Cluster tests ${HOW_TO_RUN}`);

/** A describe block that needs a Redis Cluster: skipped, saying why, only when none can be had. */
export const describeWithCluster = (name: string, body: () => void) =>
  given || canStart ? describe(name, body) : describe.skip(`${name} (${HOW_TO_RUN})`, body);

/**
 * The cluster for a test file: the one REDIS_CLUSTER_NODES names, or three fresh
 * `redis-server --cluster-enabled yes` masters on free ports, each in its own temp directory,
 * joined with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`.
 */
export async function startCluster(options: { durable?: boolean } = {}): Promise<RunningCluster> {
  if (given) {
    const nodes = given.split(',').map((address) => {
      const [host, port] = address.trim().split(':');
      return { host: host!, port: Number(port), url: `redis://${host}:${port}` };
    });
    return { nodes, stop: async () => {} };
  }
  const started: { child: ChildProcess; dir: string; args: string[] }[] = [];
  const stop = async () => {
    await Promise.all(
      started.map(async ({ child, dir }) => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill();
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      }),
    );
  };
  try {
    const nodes: ClusterNode[] = [];
    for (let i = 0; i < 3; i++) {
      const [port, busPort] = await twoFreePorts();
      const dir = mkdtempSync(join(tmpdir(), 'wcr-redis-cluster-'));
      // The bus port is given explicitly: the default (port + 10000) may be taken or out of range.
      const args = ['--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1'];
      args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--dir', dir);
      // Durable: an append-only file fsynced on every write, so a restarted master loses no job.
      args.push(
        '--save',
        '',
        ...(options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
      );
      const child = spawn('redis-server', args, { stdio: 'ignore' });
      started.push({ child, dir, args });
      await waitForPort(port, child);
      nodes.push({ host: '127.0.0.1', port, url: `redis://127.0.0.1:${port}` });
    }
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map(({ port }) => `127.0.0.1:${port}`), '--cluster-replicas', '0'].concat(
        '--cluster-yes',
      ),
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}${create.stderr}`);
    await waitUntilServing(nodes);
    const restart = async (port: number) => {
      const node = started.find(({ args }) => args[1] === String(port));
      if (!node) throw new Error(`no master of this cluster listens on port ${port}`);
      if (node.child.exitCode === null && node.child.signalCode === null) {
        const exited = new Promise((resolve) => node.child.once('exit', resolve));
        node.child.kill('SIGKILL');
        await exited;
      }
      node.child = spawn('redis-server', node.args, { stdio: 'ignore' });
      await waitForPort(port, node.child);
      await waitUntilServing(nodes);
    };
    return { nodes, stop, restart };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Until every node agrees the cluster is up, with every slot assigned and every master known. */
async function waitUntilServing(nodes: ClusterNode[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (const { port } of nodes) {
    for (;;) {
      const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout;
      if (/cluster_state:ok/.test(info) && /cluster_known_nodes:3\b/.test(info)) break;
      if (Date.now() > deadline) throw new Error(`the cluster node on port ${port} never came up:\n${info}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function twoFreePorts(): Promise<[number, number]> {
  for (;;) {
    const [a, b] = [await freePort(), await freePort()];
    if (a !== b) return [a, b];
  }
}

/** A connected cluster client of one library, as the store gets it. */
export interface ClusterClient {
  name: 'redis' | 'ioredis';
  client: RedisClientLike;
  close(): Promise<void>;
}

/**
 * Connects node-redis `createCluster` or ioredis `Cluster` to the cluster's masters, with no
 * reconnect loop, so a broken cluster fails the tests fast instead of hanging them.
 */
export async function connectCluster(name: ClusterClient['name'], nodes: ClusterNode[]): Promise<ClusterClient> {
  if (name === 'redis') {
    const cluster = createCluster({
      rootNodes: nodes.map(({ url }) => ({ url })),
      defaults: { socket: { reconnectStrategy: false, connectTimeout: 3000 } },
    });
    cluster.on('error', () => {}); // surfaced by the failing command instead
    await cluster.connect();
    return { name, client: cluster, close: async () => void (await cluster.close()) };
  }
  const cluster = new Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    { lazyConnect: true, clusterRetryStrategy: () => null, redisOptions: { connectTimeout: 3000 } },
  );
  cluster.on('error', () => {});
  await cluster.connect();
  return { name, client: cluster, close: async () => void (await cluster.quit()) };
}
