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
// The public `/testing` entry: it gathers four rooms (src/sender, src/diagnose, src/probe,
// src/inspector) and exports exactly the documented API of each, by name. No room imports this
// file, so the folders import one way (scripts/check-layers.mjs).
export { signDelivery, signature, type SignDeliveryOptions, type SignedDelivery } from '../sender/index.js';
export {
  articleSyncPayload,
  articleTrashPayload,
  testPayload,
  articleFixture,
  profileFixture,
  type PayloadOverrides,
} from '../sender/index.js';
export {
  deliver,
  RETRY_DELAYS_MS,
  ATTEMPT_TIMEOUT_MS,
  type DeliverOptions,
  type DeliveryAttempt,
  type DeliveryResult,
  type DeliverySummary,
} from '../sender/index.js';
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
} from '../sender/index.js';
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
} from '../sender/index.js';
export {
  checkDedupStore,
  type CheckDedupStoreOptions,
  type MakeDedupStore,
  type StoreSettings,
  type StoreCheckReport,
  type StoreCheckResult,
  StoreCheckError,
} from './check-dedup-store.js';
export { checkLedgerStore, ledgerEntry, type MakeLedgerStore } from './ledger-checks.js';
