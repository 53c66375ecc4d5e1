export { signDelivery, signature, type SignDeliveryOptions, type SignedDelivery } from './sign-delivery.js';
export {
  articleSyncPayload,
  articleTrashPayload,
  testPayload,
  articleFixture,
  profileFixture,
  type PayloadOverrides,
} from './factories.js';
