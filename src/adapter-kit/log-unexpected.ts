/**
 * Logs a failure no framework would see, instead of letting it become an unhandled rejection.
 *
 * @example
 * ```ts
 * serveRequest(receiver, nodeAdapterRequest(req), handlers).then((answer) => sendNodeAnswer(req, res, answer)).catch(logUnexpected);
 * ```
 * @group Adapter kit
 */
export function logUnexpected(error: unknown): void {
  console.error('webhook-cms-receiver: unexpected failure while serving a delivery:', error);
}
