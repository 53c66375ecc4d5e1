import { describe, expect, it } from 'vitest';
import { attributesOf, messageBytes, refusedBySqs, sqsJson } from './message.js';

describe('SQS message text and size', () => {
  it('counts the body and each attribute’s name, data type and value in UTF-8 bytes, as SQS does', () => {
    const attributes = attributesOf('{"é":1}');
    expect(messageBytes('ab€', attributes)).toBe(5 + 'webhook'.length + 'String'.length + 8);
    expect(messageBytes('x', attributesOf('{}', '{"reason":"r"}'))).toBe(1 + 7 + 6 + 2 + 15 + 6 + 14);
  });

  it('escapes U+FFFE and U+FFFF, which SQS refuses, keeping the JSON value', () => {
    const value = { id: 'a\uFFFFb\uFFFE' };
    const json = sqsJson(value);
    expect(refusedBySqs(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
    expect(refusedBySqs('{"a":"\uFFFF"}')).toBe(true);
    expect(refusedBySqs('{"a":"😀\t\n"}')).toBe(false);
  });
});
