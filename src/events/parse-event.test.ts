import { describe, expect, it } from 'vitest';
import { WebhookError } from '../errors/webhook-error.js';
import { parseEvent } from './parse-event.js';

const context = { deliveryId: null, tokenIndex: 0 };
const reasonOf = (json: unknown) => {
  try {
    parseEvent(json, context);
    return undefined;
  } catch (error) {
    return error instanceof WebhookError ? error.reason : String(error);
  }
};

describe('the envelope under a polluted Object.prototype', () => {
  it.each([
    ['event', 'test', { timestamp: 1 }, 'event is missing or not a string'],
    ['timestamp', 1, { event: 'test' }, 'timestamp is missing or not an integer'],
  ])('%s only Object.prototype holds does not count', (field, value, json, reason) => {
    expect(reasonOf({ event: 'test', timestamp: 1 })).toBeUndefined();
    Object.defineProperty(Object.prototype, field, { value, configurable: true, writable: true });
    try {
      expect(reasonOf(json)).toContain(reason);
      expect(reasonOf({ event: 'test', timestamp: 1 })).toBeUndefined();
    } finally {
      delete (Object.prototype as Record<string, unknown>)[field];
    }
    expect(reasonOf(json)).toContain(reason);
  });
});
