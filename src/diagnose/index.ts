// The diagnosis room: why a delivery is refused (token, signature and the body transformation it
// covers, timestamp, envelope), and the captured-delivery JSON line (capture.ts reads and writes it
// for everyone). Its public names reach users through `webhook-cms-receiver/testing`; the CLI and
// the inspector import this file.
export { diagnoseDelivery, type DiagnoseOptions } from './diagnose.js';
export type {
  Diagnosis,
  DiagnosisCheck,
  DiagnosisCheckName,
  DiagnosisVerdict,
  DiagnosisCause,
  DiagnosisCauseKind,
} from './result.js';
export type { BodyTransformation } from './transformations.js';
export {
  bodyFields,
  captureLine,
  captureRecord,
  parseCapture,
  readRecord,
  type CapturedDelivery,
  type InspectorRecord,
  type RecordedOutcome,
  type StoredDelivery,
} from './capture.js';
