import { ENVELOPE_ATTRIBUTE, FAILURE_ATTRIBUTE, readEnvelope } from '../sqs/message.js';
import { parseCommandLine, writeJson, type Io } from './io.js';
import { EXIT, Inputs, UsageError } from './usage-error.js';

/** `replay --help`. */
export const REPLAY_HELP = `Usage: webhook-cms-receiver replay --engine bullmq|pg-boss|sqs --queue NAME [--id JOB_ID ... | --all] [options]

Lists the queue's dead letters: deliveries whose handler failed for good in queue mode
(startWorker). With --id (repeatable) or --all, runs them again: the workers pick them up
with fresh attempts; a worker's dedup store still keeps each effect once.

  --engine bullmq|pg-boss|sqs  the job engine
  --queue NAME             the queue's name (pg-boss: its dead letters are in NAME_dead;
                           sqs: the queue's URL, its dead letters in its redrive target)
  --redis-url URL          BullMQ's Redis (default: $REDIS_URL)
  --prefix PREFIX          BullMQ's key prefix, such as {webhooks} on a Redis Cluster (default: bull)
  --database-url URL       pg-boss's database (default: $DATABASE_URL)
  --schema NAME            pg-boss's schema (default: pgboss)
  --dead-letter-queue URL  sqs: the dead-letter queue (default: the queue's redrive target)
  --endpoint URL           sqs: an SQS endpoint other than AWS's (the AWS SDK's own
                           configuration gives the region and credentials otherwise)
  --id JOB_ID              replay this dead letter (as listed); repeat for several
  --all                    replay every dead letter
  --json                   print JSON instead of a table

Needs the engine's package installed beside this one (bullmq, pg-boss, or @aws-sdk/client-sqs).
SQS lists dead letters by receiving them, so each listing counts as a receive. Exit 0 when done,
1 when a replay failed, 2 for a usage error.
`;

const OPTIONS = {
  engine: { type: 'string' },
  queue: { type: 'string' },
  'redis-url': { type: 'string' },
  prefix: { type: 'string' },
  'database-url': { type: 'string' },
  schema: { type: 'string' },
  'dead-letter-queue': { type: 'string' },
  endpoint: { type: 'string' },
  id: { type: 'string', multiple: true },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** One dead letter as listed. */
interface DeadLetter {
  id: string;
  deliveryId: string | null;
  event: string | null;
  reason: string | null;
}

/** An engine's dead-letter list: read it, replay some of it, let go of the connection. */
interface DeadLetters {
  list(): Promise<DeadLetter[]>;
  replay(id: string): Promise<void>;
  close(): Promise<void>;
}

/** `replay`: lists, and with --id or --all re-runs, a queue's dead letters. */
export async function replayCommand(args: string[], io: Io): Promise<number> {
  const { flags } = parseCommandLine(args, OPTIONS, 'replay', false);
  if (flags.help) {
    io.stdout(REPLAY_HELP);
    return EXIT.delivered;
  }
  const inputs = new Inputs();
  const engine = inputs.take(() => {
    if (flags.engine === 'bullmq' || flags.engine === 'pg-boss' || flags.engine === 'sqs') return flags.engine;
    throw new UsageError(
      flags.engine === undefined
        ? 'missing --engine bullmq|pg-boss|sqs'
        : `--engine must be bullmq, pg-boss or sqs, got "${flags.engine}"`,
    );
  });
  const queue = inputs.take(() => {
    if (flags.queue) return flags.queue;
    throw new UsageError(
      "missing --queue NAME: the queue's name, as given to bullmqQueue / pgBossQueue (sqs: its URL)",
    );
  });
  const url = inputs.take(() => {
    if (engine === 'sqs') return undefined;
    const given =
      engine === 'pg-boss' ? (flags['database-url'] ?? io.env.DATABASE_URL) : (flags['redis-url'] ?? io.env.REDIS_URL);
    if (given || engine === undefined) return given;
    throw new UsageError(
      engine === 'pg-boss' ? 'missing --database-url (or DATABASE_URL)' : 'missing --redis-url (or REDIS_URL)',
    );
  });
  if (flags.all && flags.id) inputs.take(() => Promise.reject(new UsageError('give --id or --all, not both')));
  inputs.check();

  const letters =
    engine === 'sqs'
      ? await sqsLetters(queue!, flags['dead-letter-queue'], flags.endpoint)
      : engine === 'bullmq'
        ? await bullmqLetters(url!, queue!, flags.prefix)
        : await pgBossLetters(url!, queue!, flags.schema);
  try {
    const listed = await letters.list();
    const chosen = flags.all ? listed.map((letter) => letter.id) : (flags.id ?? []);
    const unknown = chosen.filter((id) => !listed.some((letter) => letter.id === id));
    const replayed: string[] = [];
    const failed: Array<{ id: string; error: string }> = [];
    for (const id of chosen) {
      if (unknown.includes(id)) {
        failed.push({ id, error: 'not in the dead-letter list' });
        continue;
      }
      try {
        await letters.replay(id);
        replayed.push(id);
      } catch (error) {
        failed.push({ id, error: String((error as Error)?.message ?? error) });
      }
    }
    if (flags.json) writeJson(io, { engine, queue, deadLetters: listed, replayed, failed });
    else io.stdout(table(listed, replayed, failed, chosen.length > 0));
    return failed.length === 0 ? EXIT.delivered : EXIT.failed;
  } finally {
    await letters.close();
  }
}

function table(
  listed: DeadLetter[],
  replayed: string[],
  failed: Array<{ id: string; error: string }>,
  replaying: boolean,
): string {
  if (listed.length === 0 && !replaying) return 'No dead letters.\n';
  const lines = listed.map(
    (letter) =>
      `  ${replayed.includes(letter.id) ? 'replayed ' : ''}${letter.id}  ${letter.event ?? '?'}  delivery ${letter.deliveryId ?? '(none)'}` +
      (letter.reason ? `  (${letter.reason})` : ''),
  );
  const summary = replaying
    ? `\n${replayed.length} replayed, ${failed.length} failed`
    : `\n${listed.length} dead letter(s); replay with --id JOB_ID or --all`;
  const failures = failed.map(({ id, error }) => `\n  FAIL ${id}: ${error}`).join('');
  return `${lines.join('\n')}${summary}${failures}\n`;
}

/** Loads an optional peer by a name the bundler leaves alone, with the fix when it is missing. */
async function load<T>(name: string, engine = name): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch {
    throw new UsageError(`replay --engine ${engine} needs the "${name}" package: npm install ${name}`);
  }
}

interface BullJob {
  id?: string;
  name: string;
  data: { deliveryId?: string | null };
  failedReason?: string;
  retry(state: 'failed', options: { resetAttemptsMade: boolean; resetAttemptsStarted: boolean }): Promise<void>;
}

/** BullMQ: the failed set is the dead-letter list; a replay moves the job back to waiting with fresh attempts. */
async function bullmqLetters(url: string, queueName: string, prefix: string | undefined): Promise<DeadLetters> {
  const engine = 'bullmq';
  const { Queue } = await load<{
    Queue: new (
      name: string,
      options: object,
    ) => {
      getFailed(start: number, end: number): Promise<BullJob[]>;
      getJob(id: string): Promise<BullJob | undefined>;
      close(): Promise<void>;
    };
  }>(engine);
  const { hostname, port, username, password } = new URL(url);
  const connection = { host: hostname, port: Number(port || 6379), username, password, maxRetriesPerRequest: 1 };
  const queue = new Queue(queueName, { connection, ...(prefix ? { prefix } : {}) });
  return {
    async list() {
      const jobs = await queue.getFailed(0, -1);
      return jobs.map((job) => ({
        id: job.id!,
        deliveryId: job.data?.deliveryId ?? null,
        event: job.name,
        reason: job.failedReason ?? null,
      }));
    },
    async replay(id) {
      const job = await queue.getJob(id);
      if (!job) throw new Error('the job is gone');
      // Fresh attempts: the worker counts BullMQ's attemptsStarted.
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    },
    close: () => queue.close(),
  };
}

interface BossLike {
  start(): Promise<unknown>;
  stop(options: object): Promise<void>;
  send(name: string, data: object): Promise<string | null>;
  getDb(): { executeSql(text: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> };
}

/**
 * pg-boss: the dead letters are the jobs waiting in `<queue>_dead`, listed from pg-boss 10's
 * job table without fetching them. A replay sends the delivery to the queue as a new job (a
 * retry of the original would keep its spent retry count) and completes the dead letter.
 */
async function pgBossLetters(url: string, queueName: string, schema = 'pgboss'): Promise<DeadLetters> {
  if (!/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new UsageError(`--schema must be a plain SQL name, got "${schema}"`);
  const { default: PgBoss } = await load<{ default: new (options: object) => BossLike }>('pg-boss');
  const boss = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false, migrate: false });
  (boss as unknown as { on(event: string, listener: () => void): void }).on('error', () => {});
  await boss.start();
  const dead = `${queueName}_dead`;
  const read = async (id?: string) => {
    const { rows } = await boss
      .getDb()
      .executeSql(
        `SELECT id, data, output FROM ${schema}.job WHERE name = $1 AND state IN ('created', 'retry')${id ? ' AND id = $2' : ''} ORDER BY created_on`,
        id ? [dead, id] : [dead],
      );
    return rows as Array<{
      id: string;
      data: { deliveryId?: string | null; event?: string };
      output: { error?: unknown; value?: { message?: unknown } } | null;
    }>;
  };
  return {
    async list() {
      return (await read()).map((row) => ({
        id: row.id,
        deliveryId: row.data?.deliveryId ?? null,
        event: row.data?.event ?? null,
        // pgBossSource writes `error`; pg-boss's own lease expiry writes `value.message`.
        reason: String(row.output?.error ?? row.output?.value?.message ?? '') || null,
      }));
    },
    async replay(id) {
      const [row] = await read(id);
      if (!row) throw new Error('the dead letter is gone');
      await boss.send(queueName, row.data);
      // pg-boss completes only jobs a worker fetched: this one never was, so its state is set here.
      await boss
        .getDb()
        .executeSql(`UPDATE ${schema}.job SET state = 'completed', completed_on = now() WHERE name = $1 AND id = $2`, [
          dead,
          id,
        ]);
    },
    close: () => boss.stop({ graceful: false, wait: true, close: true }),
  };
}

interface SqsMessage {
  MessageId?: string;
  ReceiptHandle?: string;
  Body?: string;
  Attributes?: Record<string, string>;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
}

interface SqsModule {
  SQSClient: new (options: object) => { send(command: object): Promise<Record<string, unknown>>; destroy(): void };
  [command: string]: unknown;
}

/**
 * SQS: the dead letters are the messages on the queue's redrive target (or --dead-letter-queue),
 * read by receiving them with a visibility timeout that keeps them apart while listed. A replay
 * sends the delivery to the queue as a new message (fresh receive count, fresh attempts), without
 * its reason, then deletes the dead letter; the rest are made visible again on close.
 */
async function sqsLetters(queueUrl: string, deadLetterQueue: string | undefined, endpoint: string | undefined) {
  const sqs = await load<SqsModule>('@aws-sdk/client-sqs', 'sqs');
  const client = new sqs.SQSClient(endpoint ? { endpoint } : {});
  const command = (name: string, input: object) => new (sqs[name] as new (input: object) => object)(input);
  const deadUrl = deadLetterQueue ?? (await redriveTarget(client, command, queueUrl));
  const listed = new Map<string, SqsMessage>();
  const fifo = queueUrl.endsWith('.fifo');
  return {
    async list() {
      for (let empty = 0; empty < 2; ) {
        const { Messages = [] } = (await client.send(
          command('ReceiveMessageCommand', {
            QueueUrl: deadUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 60,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
        )) as { Messages?: SqsMessage[] };
        const fresh = Messages.filter((m) => !listed.has(m.MessageId!));
        for (const m of fresh) listed.set(m.MessageId!, m);
        empty = fresh.length === 0 ? empty + 1 : 0;
      }
      return [...listed.values()].map((m) => {
        const envelope = readEnvelope(m.MessageAttributes?.[ENVELOPE_ATTRIBUTE]?.StringValue);
        let reason: string | null = null;
        try {
          reason = JSON.parse(m.MessageAttributes?.[FAILURE_ATTRIBUTE]?.StringValue ?? 'null')?.reason ?? null;
        } catch {}
        return {
          id: m.MessageId!,
          deliveryId: envelope?.deliveryId ?? null,
          event: envelope?.event ?? null,
          reason:
            reason ??
            `no reason kept: moved by the redrive policy after ${m.Attributes?.ApproximateReceiveCount ?? '?'} receives`,
        };
      });
    },
    async replay(id: string) {
      const m = listed.get(id);
      if (!m) throw new Error('the dead letter is gone');
      const attributes = { ...m.MessageAttributes };
      delete attributes[FAILURE_ATTRIBUTE];
      const envelope = readEnvelope(attributes[ENVELOPE_ATTRIBUTE]?.StringValue);
      if (envelope) {
        const { deferred: _, ...fresh } = envelope;
        attributes[ENVELOPE_ATTRIBUTE] = { DataType: 'String', StringValue: JSON.stringify(fresh) };
      }
      await client.send(
        command('SendMessageCommand', {
          QueueUrl: queueUrl,
          MessageBody: m.Body,
          MessageAttributes: attributes,
          ...(fifo
            ? { MessageGroupId: m.Attributes?.MessageGroupId ?? 'replayed', MessageDeduplicationId: `replay-${id}` }
            : {}),
        }),
      );
      await client.send(command('DeleteMessageCommand', { QueueUrl: deadUrl, ReceiptHandle: m.ReceiptHandle }));
      listed.delete(id);
    },
    async close() {
      // Those not replayed are visible again at once, not after the listing's 60 s.
      for (const m of listed.values()) {
        await client
          .send(
            command('ChangeMessageVisibilityCommand', {
              QueueUrl: deadUrl,
              ReceiptHandle: m.ReceiptHandle,
              VisibilityTimeout: 0,
            }),
          )
          .catch(() => {});
      }
      client.destroy();
    },
  } satisfies DeadLetters;
}

/** The dead-letter queue's URL, from the queue's redrive policy. */
async function redriveTarget(
  client: { send(command: object): Promise<Record<string, unknown>> },
  command: (name: string, input: object) => object,
  queueUrl: string,
): Promise<string> {
  const { Attributes } = (await client.send(
    command('GetQueueAttributesCommand', { QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }),
  )) as { Attributes?: { RedrivePolicy?: string } };
  const arn = String(
    (JSON.parse(Attributes?.RedrivePolicy ?? '{}') as { deadLetterTargetArn?: string }).deadLetterTargetArn ?? '',
  ).split(':');
  if (arn.length < 6) {
    throw new UsageError(`the queue ${queueUrl} has no redrive policy: give --dead-letter-queue URL`);
  }
  const { QueueUrl } = (await client.send(
    command('GetQueueUrlCommand', { QueueName: arn[5], QueueOwnerAWSAccountId: arn[4] }),
  )) as { QueueUrl?: string };
  return QueueUrl!;
}
