import {
  type DynamoDBClient,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';

/** What the middleware does to the next calls of one command (`PutItemCommand`, …). */
export interface FaultPlan {
  /** Throw the service's throttling error instead of sending: DynamoDB refused the call, nothing is written. */
  throttle?: (commandName: string) => boolean;
  /** Send, then lose the answer as a dropped connection would: the call is written, and the SDK sends it again. */
  loseAnswer?: (commandName: string) => boolean;
}

/**
 * Faults injected inside the SDK's retry loop (a middleware on the client's stack, at the
 * `deserialize` step): each attempt the SDK makes meets the plan, so its own retries run as
 * they would against a throttled table or a flaky network. Also counts every attempt by
 * command, for the tests that count round trips.
 */
export function injectFaults(client: DynamoDBClient): { plan: FaultPlan; attempts: Map<string, number> } {
  const plan: FaultPlan = {};
  const attempts = new Map<string, number>();
  let throttles = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      attempts.set(name, (attempts.get(name) ?? 0) + 1);
      if (plan.throttle?.(name)) {
        const metadata = { $metadata: { httpStatusCode: 400, attempts: 1 } };
        // Both throttling errors DynamoDB answers, in turn.
        throw throttles++ % 2 === 0
          ? new ProvisionedThroughputExceededException({ message: 'injected: throughput exceeded', ...metadata })
          : new ThrottlingException({ message: 'injected: rate exceeded', ...metadata });
      }
      const output = await next(args);
      if (plan.loseAnswer?.(name)) {
        throw Object.assign(new Error('injected: socket hang up after the request was written'), {
          code: 'ECONNRESET',
          $metadata: {},
        });
      }
      return output;
    },
    { step: 'deserialize', name: 'injectFaults' },
  );
  return { plan, attempts };
}
