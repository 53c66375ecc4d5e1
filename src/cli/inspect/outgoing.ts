import {
  articleSyncPayload,
  articleTrashPayload,
  type SignedDelivery,
  signDelivery,
  testPayload,
} from '../../sender/index.js';
import { readAnswer } from '../../sender/index.js';
import type { StoredDelivery } from '../../diagnose/index.js';

/** What the target answered to a replayed or sent delivery. */
export interface TargetAnswer {
  status: number;
  body: unknown;
  deliveryId: string;
}

/** Options of {@link replay}. */
export interface ReplayOptions {
  target: string;
  token: string;
  /** Keep the recorded delivery id (a redelivery) or make a new one (a new delivery). */
  newDeliveryId: boolean;
}

/** A recorded delivery the inspector will not replay, and why: answered 409, not sent. */
export class ReplayRefused extends Error {
  override readonly name = 'ReplayRefused';
}

/**
 * Sends a recorded delivery again, re-signed with a fresh timestamp and the token from the
 * environment: the body is the recorded bytes, so a delivery refused for its signature or its
 * age is accepted now if only those were wrong. Never a delivery refused for its token: its
 * body came from someone without the token, and re-signing it would authenticate it.
 */
export async function replay(record: StoredDelivery, options: ReplayOptions): Promise<TargetAnswer> {
  if (record.recorded?.code === 'invalid_token' || record.recorded?.status === 401)
    throw new ReplayRefused(
      'this delivery was refused for its token (invalid_token), so it is not replayed: re-signing it with your token would turn a request from someone without the token into an authenticated one. Send a new delivery instead.',
    );
  if (record.bodyTruncated)
    throw new ReplayRefused('this delivery was recorded with a truncated body, so it cannot be replayed');
  const body = record.body ?? '';
  const header = (name: string) => [record.headers[name] ?? []].flat()[0];
  const recordedId = record.event?.deliveryId ?? header('x-service-delivery-id');
  const deliveryId = options.newDeliveryId || !recordedId ? globalThis.crypto.randomUUID() : recordedId;
  const signed = signDelivery({ token: options.token, payload: body, deliveryId });
  const eventName = record.event?.name ?? header('x-service-event');
  if (eventName) signed.headers['X-Service-Event'] = eventName;
  return post(options.target, signed, deliveryId);
}

const FACTORIES = { test: testPayload, 'article.sync': articleSyncPayload, 'article.trash': articleTrashPayload };

/** The events the page can send from the payload factories. */
export type SendableEvent = keyof typeof FACTORIES;

/** Sends a new delivery made by the payload factories, signed as the service signs. */
export async function sendNew(event: SendableEvent, options: { target: string; token: string }): Promise<TargetAnswer> {
  const factory = FACTORIES[event];
  if (!factory) throw new Error(`cannot send "${String(event)}": choose test, article.sync or article.trash`);
  const deliveryId = globalThis.crypto.randomUUID();
  return post(options.target, signDelivery({ token: options.token, payload: factory(), deliveryId }), deliveryId);
}

async function post(target: string, delivery: SignedDelivery, deliveryId: string): Promise<TargetAnswer> {
  const response = await fetch(target, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
    // The service follows no redirect; the page shows a 3xx as the target's answer.
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  // An endless answer from the target costs 64 KiB, not the inspector's memory.
  const { body } = await readAnswer(response);
  return { status: response.status, body, deliveryId };
}
