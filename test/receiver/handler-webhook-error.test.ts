import { describe, expect, it } from 'vitest';
import { createReceiver, WebhookError } from 'webhook-cms-receiver';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';

const token = 'whk_handler_webhook_error_token';

describe('a handler that throws a WebhookError of its own', () => {
  it.each(['invalid_token', 'invalid_signature', 'invalid_payload', 'handler_failed'] as const)(
    'is answered 500 Handler failed, never as the refusal its code names (%s)',
    async (code) => {
      const answer = await createReceiver({ token, logger: false }).handle(
        signDelivery({ token, payload: articleSyncPayload() }),
        {
          'article.sync': () => {
            throw new WebhookError(code, 'thrown by the handler');
          },
        },
      );
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 'Handler failed' });
    },
  );
});
