import { ConditionalCheckFailedException, ThrottlingException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { explainDynamoDbError, isTransient, timeToLiveError } from './calls.js';
import { dynamoDbTableInput, dynamoDbTimeToLiveInput } from './table-input.js';

const metadata = (httpStatusCode?: number) => ({ $metadata: { httpStatusCode } });

describe('isTransient', () => {
  it('retries throttling, 5xx, lost connections and timeouts', () => {
    expect(isTransient(new ThrottlingException({ message: 'slow down', ...metadata(400) }))).toBe(true);
    expect(isTransient(Object.assign(new Error('internal'), metadata(500)))).toBe(true);
    expect(isTransient(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransient(Object.assign(new Error('no answer'), { $metadata: {} }))).toBe(true);
    expect(isTransient(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe(true);
    expect(isTransient(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe(
      true,
    );
  });

  it('never retries a refusal the same call would meet again, nor a bug of ours', () => {
    expect(isTransient(new ConditionalCheckFailedException({ message: 'no', ...metadata(400) }))).toBe(false);
    expect(isTransient(Object.assign(new Error('missing'), { name: 'ResourceNotFoundException' }, metadata(400)))).toBe(
      false,
    );
    expect(isTransient(new TypeError('x is undefined'))).toBe(false);
    expect(isTransient(new Error('dynamoDbDedupStore: the article kept changing'))).toBe(false);
    expect(isTransient(undefined)).toBe(false);
  });
});

describe('explainDynamoDbError', () => {
  it('names the table and the fix for a missing table, a denied action and a foreign key schema', () => {
    const missing = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    expect(String(explainDynamoDbError(missing, 'deliveries', 'claim a delivery'))).toMatch(
      /could not claim a delivery in table deliveries.*CreateTableCommand\(dynamoDbTableInput\('deliveries'\)\)/,
    );
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    expect(String(explainDynamoDbError(denied, 'deliveries', 'claim a delivery'))).toContain('dynamodb:PutItem');
    const schema = Object.assign(new Error('The provided key element does not match the schema'), {
      name: 'ValidationException',
    });
    expect(String(explainDynamoDbError(schema, 'deliveries', 'claim a delivery'))).toContain('another key schema');
    const other = Object.assign(new Error('Item size has exceeded the maximum'), { name: 'ValidationException' });
    expect(explainDynamoDbError(other, 'deliveries', 'claim a delivery')).toBe(other);
  });

  it('says a TTL on another attribute, or none, and how to turn it on', () => {
    expect(timeToLiveError('t1', 'DISABLED', undefined).message).toMatch(
      /Time to Live is disabled.*Enabled=true,AttributeName=expiresAt/,
    );
    expect(timeToLiveError('t1', 'ENABLED', 'ttl').message).toContain('Time to Live is on for attribute "ttl"');
  });
});

describe('dynamoDbTableInput', () => {
  it('refuses a name DynamoDB would refuse, where the mistake is made', () => {
    expect(() => dynamoDbTableInput('a b')).toThrow(/dynamoDbTableInput: table must be a DynamoDB table name/);
    expect(dynamoDbTimeToLiveInput('webhook-deliveries').TimeToLiveSpecification).toEqual({
      Enabled: true,
      AttributeName: 'expiresAt',
    });
  });
});
