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
// This file is the public `/testing` entry and the door of the signer room (this folder): the
// signer, the payload factories and the delivery simulator. It gathers the other three rooms
// too (src/diagnose, src/probe, src/inspector), so it ranks above them in scripts/check-layers.mjs.
//
// The signer is kept independent of the receiver on purpose: it signs with its own HMAC-SHA256
// (hmac-sha256.ts) and hex (hex.ts) and imports no code from src/receiver, src/crypto or the core
// entry (only the event types the factories build), so a bug in the receiver's verification
// cannot hide behind the same bug in the signer: it exists to catch the receiver's bugs, and a
// shared implementation would agree with them. Helpers the CLI shares come through internal.ts.
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
export {
  diagnoseDelivery,
  type DiagnoseOptions,
  type Diagnosis,
  type DiagnosisCheck,
  type DiagnosisCheckName,
  type DiagnosisVerdict,
  type DiagnosisCause,
  type DiagnosisCauseKind,
  type BodyTransformation,
  parseCapture,
  captureLine,
  type CapturedDelivery,
  type RecordedOutcome,
} from '../diagnose/index.js';
export {
  rotationDrill,
  type RotationDrillOptions,
  type RotationDrillResult,
  type DrillDelivery,
  type DrillSend,
} from './rotation-drill.js';
export { probeEndpoint, type ProbeOptions, type ProbeRow, type ProbeResult, type ProbeFetch } from '../probe/index.js';
export {
  createInspector,
  DEFAULT_INSPECTOR_FILE,
  type InspectorOptions,
  type InspectorRecord,
} from '../inspector/index.js';
export {
  lambdaEvent,
  type LambdaEventOptions,
  type LambdaAlbEvent,
  type LambdaHttpApiEvent,
  type LambdaRestApiEvent,
} from './lambda-event.js';
