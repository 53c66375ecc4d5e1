import { describe, expect, it } from 'vitest';
import { statementName } from './statement-names.js';

describe('statementName', () => {
  it('names a statement by its text: the same text the same name, another text another', () => {
    const claim = 'INSERT INTO webhook_deliveries AS d (id) VALUES ($1)';
    expect(statementName(claim)).toBe(statementName(`${claim}`));
    expect(statementName(claim)).not.toBe(statementName(claim.replace('$1', '$2')));
    expect(statementName(claim)).not.toBe(statementName(claim.replace('webhook_deliveries', 'other')));
    expect(statementName(claim)).toMatch(/^wcr_[0-9a-f]{16}$/);
  });
});
