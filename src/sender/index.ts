// The sender room: the service's side of a delivery, for tests and the developer tools. It signs
// (sign-delivery.ts), builds payloads (factories.ts), sends with the service's retry schedule
// (deliver.ts) and builds Lambda events (lambda-event.ts). This file is its door: the public
// `/testing` entry re-exports from it by name, and the CLI imports through it.
//
// The room is kept independent of the receiver on purpose: it signs with its own HMAC-SHA256
// (hmac-sha256.ts) and hex (hex.ts) and imports no code from src/receiver, src/crypto or the core
// entry (only the event types the factories build), so a bug in the receiver's verification
// cannot hide behind the same bug in the signer: it exists to catch the receiver's bugs, and a
// shared implementation would agree with them.
export {
  signDelivery,
  signature,
  eventNameOf,
  type SignDeliveryOptions,
  type SignedDelivery,
} from './sign-delivery.js';
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
export { redirectReason } from './deliver-summary.js';
export { httpUrl } from './http-url.js';
export { readAnswer } from './read-answer.js';
export {
  lambdaEvent,
  type LambdaEventOptions,
  type LambdaRestApiEvent,
  type LambdaHttpApiEvent,
  type LambdaAlbEvent,
} from './lambda-event.js';
export {
  rotationDrill,
  type RotationDrillOptions,
  type RotationDrillResult,
  type DrillDelivery,
  type DrillSend,
} from './rotation-drill.js';
