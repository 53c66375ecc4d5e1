/**
 * An `onRejected` hook for test receivers that are sent refusals on purpose (wrong tokens,
 * tampered bodies, the probe's refusal rows): the refusal is what the test asserts, so the
 * default `warn` line would only look like a failure in the test output.
 */
export const expectedRefusal = (): void => {};
