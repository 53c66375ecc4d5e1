// The two rotation setups of docs/tokens.md, as code the runbook test runs. Keep them in step
// with the blocks under its runbooks.
import { createReceiver, type DedupStore, type TokenSourceResult, type WebhookHandlers } from 'webhook-cms-receiver';

/**
 * Env-var deployments: the current token, the previous one while rotating, and the window.
 * README: "Env vars".
 */
export function receiverFromEnv(
  env: Record<string, string | undefined>,
  dedup?: DedupStore,
  handlers?: WebhookHandlers,
) {
  return createReceiver({
    token: [env.WEBHOOK_TOKEN!, env.WEBHOOK_TOKEN_PREVIOUS].filter((token): token is string => !!token),
    rotatingUntil: env.WEBHOOK_ROTATING_UNTIL || undefined,
    dedup,
    handlers,
  });
}

/**
 * Secret managers: the secret holds `{"tokens": [current, previous?], "rotatingUntil"?: ISO}`;
 * no deploy at any step. README: "Secret managers".
 */
export function receiverFromSecret(readSecret: (name: string) => Promise<string>, dedup?: DedupStore) {
  return createReceiver({
    token: async () => JSON.parse(await readSecret('webhook-token')) as TokenSourceResult,
    dedup,
  });
}
