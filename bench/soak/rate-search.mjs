// The throughput record's search for the highest sustained rate, as a generator so two
// searches can take turns: it yields the next rate to try, is resumed with whether that rate
// was sustained, and returns the highest rate it saw sustained (0 if none down to 10/s).

/**
 * Steps up by `factor` from `start` until a rate fails (or steps down until one holds), then
 * `bisections` geometric bisections between the last rate held and the first that failed.
 * @param {{ start: number, factor: number, bisections: number }} options
 */
export function* searchRate({ start, factor, bisections }) {
  let held = 0;
  let failed = Number.POSITIVE_INFINITY;
  let rate = start;
  while (failed === Number.POSITIVE_INFINITY) {
    if (yield rate) {
      held = rate;
      rate *= factor;
    } else failed = rate;
  }
  while (held === 0) {
    rate = failed / factor;
    if (rate < 10) return 0;
    if (yield rate) held = rate;
    else failed = rate;
  }
  for (let i = 0; i < bisections; i++) {
    rate = Math.sqrt(held * failed);
    if (yield rate) held = rate;
    else failed = rate;
  }
  return held;
}
