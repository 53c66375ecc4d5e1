/** Reads a numeric option that must be positive; the error names the function and the option. */
export function positiveOption(value: number | undefined, fallback: number, label: string): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value > 0))
    throw new RangeError(`${label} must be a positive number, got ${String(value)}.`);
  return value;
}
