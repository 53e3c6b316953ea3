/** The axis-aligned box of a packed xyz position array: its corners and the length of each side. */
export function positionBox(positions: Float32Array): { min: number[]; max: number[]; size: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    const a = i % 3;
    if (positions[i] < min[a]) min[a] = positions[i];
    if (positions[i] > max[a]) max[a] = positions[i];
  }
  return { min, max, size: [0, 1, 2].map((a) => max[a] - min[a]) };
}
