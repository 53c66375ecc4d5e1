import { describeValue } from './describe.js';

/** Reads a numeric option that must be positive; the error names the function, the option and what it got. */
export function positiveOption(value: number | undefined, fallback: number, label: string): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value > 0))
    throw new RangeError(`${label} must be a positive number, got ${describeValue(value)}.`);
  return value;
}
