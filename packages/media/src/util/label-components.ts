/**
 * Connected components of `inside`, 8-connected when `eight`, else 4-connected (for backdrop regions, so a
 * diagonal gap does not leak backdrop into the product). An explicit stack, never recursion: a region may
 * span the whole image.
 */
export function labelComponents(
  width: number,
  height: number,
  inside: (i: number) => boolean,
  eight: boolean,
): { labels: Int32Array; areas: number[]; touchesEdge: boolean[] } {
  const labels = new Int32Array(width * height).fill(-1);
  const areas: number[] = [];
  const touchesEdge: boolean[] = [];
  const stack = new Int32Array(width * height);
  for (let start = 0; start < labels.length; start++) {
    if (labels[start] !== -1 || !inside(start)) continue;
    const label = areas.length;
    let area = 0;
    let edge = false;
    let top = 0;
    stack[top++] = start;
    labels[start] = label;
    while (top > 0) {
      const i = stack[--top];
      area++;
      const x = i % width;
      const y = (i - x) / width;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) edge = true;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          if ((dx === 0 && dy === 0) || (!eight && dx !== 0 && dy !== 0)) continue;
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const j = yy * width + xx;
          if (labels[j] === -1 && inside(j)) {
            labels[j] = label;
            stack[top++] = j;
          }
        }
      }
    }
    areas.push(area);
    touchesEdge.push(edge);
  }
  return { labels, areas, touchesEdge };
}
