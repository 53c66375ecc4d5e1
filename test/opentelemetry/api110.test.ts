import { expect, it, vi } from 'vitest';

// @opentelemetry/api 1.10 (the `otel-api110` alias) as the API of the application and of
// webhook-cms-receiver/opentelemetry. The OpenTelemetry SDK 2.x packages pin their own API
// below 1.10, so they keep theirs: the case of an application on 1.10 with the SDK beside it.
// The providers are passed to openTelemetry() (memorySdk), so no global crosses the copies.
vi.mock('@opentelemetry/api', () => import('otel-api110'));

it('runs on @opentelemetry/api 1.10', async () => {
  // `logs` is new in 1.10.
  expect('logs' in (await import('@opentelemetry/api'))).toBe(true);
});

// Every outcome's span and metrics, as on the API the SDK was built with.
await import('./outcomes.test.js');
