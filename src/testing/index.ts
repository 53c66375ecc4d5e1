/**
 * Helpers for your own tests and for finding out why a delivery fails: sign deliveries exactly as the service does,
 * build realistic payloads, send them with its retry schedule, diagnose a refused request and probe a running endpoint.
 *
 * @example
 * ```ts
 * import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
 * const { headers, body } = signDelivery({ token: 'test-token', payload: articleSyncPayload() });
 * ```
 * @module webhook-cms-receiver/testing
 */
export { signDelivery, signature, type SignDeliveryOptions, type SignedDelivery } from './sign-delivery.js';
export {
  articleSyncPayload,
  articleTrashPayload,
  testPayload,
  articleFixture,
  profileFixture,
  type PayloadOverrides,
} from './factories.js';
export {
  deliver,
  RETRY_DELAYS_MS,
  ATTEMPT_TIMEOUT_MS,
  type DeliverOptions,
  type DeliveryAttempt,
  type DeliveryResult,
  type DeliverySummary,
} from './deliver.js';
export { diagnoseDelivery, type DiagnoseOptions } from './diagnose.js';
export type {
  Diagnosis,
  DiagnosisCheck,
  DiagnosisCheckName,
  DiagnosisVerdict,
  DiagnosisCause,
  DiagnosisCauseKind,
} from './diagnose-result.js';
export type { BodyTransformation } from './diagnose-transformations.js';
export { parseCapture, captureLine, type CapturedDelivery, type RecordedOutcome } from './diagnose-capture.js';
export { probeEndpoint, type ProbeOptions, type ProbeRow, type ProbeResult } from './probe.js';
export type { ProbeFetch } from './probe-exchange.js';
export { createInspector, DEFAULT_INSPECTOR_FILE, type InspectorOptions, type InspectorRecord } from './inspector.js';
