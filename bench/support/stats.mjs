/** Median of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** "median [min–max]" with a fixed number of decimals. */
export function spread(values, decimals = 0) {
  const f = (value) => value.toFixed(decimals);
  return `${f(median(values))} [${f(Math.min(...values))}–${f(Math.max(...values))}]`;
}
