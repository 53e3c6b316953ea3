// Small measuring and printing helpers for bench/export.mjs.

/**
 * Samples the resident set size until stopped. process.resourceUsage().maxRSS
 * only ever grows, so it cannot tell which phase of a benchmark set the peak.
 */
export function watchRss(intervalMs = 10) {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

/** Left-aligned first column, right-aligned figures. */
export function formatTable(rows) {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells
    .map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('   '))
    .join('\n');
}
