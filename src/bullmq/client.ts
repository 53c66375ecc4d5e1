import type { Queue, Worker } from 'bullmq';

/** What a BullMQ `Queue` or `Worker` holds its Redis client on, across majors. */
interface ClientHolder {
  /** BullMQ 5. */
  client?: Promise<unknown>;
  /** BullMQ 6: the Redis backend owns the connection, and hands out the client. */
  getBackend?(): { client?: Promise<unknown> } | undefined;
}

/**
 * The Redis client a `Queue` or `Worker` uses, for the scripts this entry runs beside
 * BullMQ's own: `queue.client` in BullMQ 5, `queue.getBackend().client` in BullMQ 6, which
 * moved every connection behind a datastore backend and dropped `client`.
 */
export function bullClient(holder: Queue | Worker): Promise<unknown> {
  const h = holder as unknown as ClientHolder;
  const client = h.client ?? h.getBackend?.()?.client;
  if (client === undefined)
    throw new TypeError(
      'webhook-cms-receiver/bullmq: this BullMQ version hands out no Redis client (no queue.client, no ' +
        'getBackend().client); BullMQ 5 and 6 on Redis are supported',
    );
  return client;
}
