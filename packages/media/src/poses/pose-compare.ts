import { cameraCentre, type PosedCamera } from './camera.js';
import { dot, mul3, rotationAngleDeg, rotationFromQuaternion, symmetricEigen, transpose3 } from './linear-algebra.js';

// Measuring recovered cameras against known ones: structure from motion fixes poses only up to a
// similarity (rotation, translation, scale), so the two sets are first aligned on their camera centres.

export interface Similarity {
  scale: number;
  /** Row-major; maps the first frame's directions to the second's. */
  rotation: number[];
  translation: [number, number, number];
}

/** Least-squares similarity with b ≈ s·R·a + T (Horn's quaternion method); needs ≥ 3 non-collinear points. */
export function alignSimilarity(a: readonly number[][], b: readonly number[][]): Similarity {
  const n = a.length;
  const ca = [0, 1, 2].map((k) => a.reduce((s, p) => s + p[k], 0) / n);
  const cb = [0, 1, 2].map((k) => b.reduce((s, p) => s + p[k], 0) / n);
  const s = new Array<number>(9).fill(0);
  let normA = 0;
  for (let i = 0; i < n; i++) {
    const pa = [0, 1, 2].map((k) => a[i][k] - ca[k]);
    const pb = [0, 1, 2].map((k) => b[i][k] - cb[k]);
    normA += dot(pa, pa);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) s[r * 3 + c] += pa[r] * pb[c];
  }
  const [xx, xy, xz, yx, yy, yz, zx, zy, zz] = s;
  const horn = [
    xx + yy + zz, yz - zy, zx - xz, xy - yx,
    yz - zy, xx - yy - zz, xy + yx, zx + xz,
    zx - xz, xy + yx, -xx + yy - zz, yz + zy,
    xy - yx, zx + xz, yz + zy, -xx - yy + zz,
  ];
  const { vectors } = symmetricEigen(horn, 4);
  const rotation = rotationFromQuaternion(vectors[3]);
  let cross = 0;
  for (let i = 0; i < n; i++) {
    const pa = [0, 1, 2].map((k) => a[i][k] - ca[k]);
    const pb = [0, 1, 2].map((k) => b[i][k] - cb[k]);
    const ra = [0, 1, 2].map((r) => rotation[r * 3] * pa[0] + rotation[r * 3 + 1] * pa[1] + rotation[r * 3 + 2] * pa[2]);
    cross += dot(pb, ra);
  }
  const scale = cross / normA;
  const rca = [0, 1, 2].map((r) => rotation[r * 3] * ca[0] + rotation[r * 3 + 1] * ca[1] + rotation[r * 3 + 2] * ca[2]);
  return { scale, rotation, translation: [cb[0] - scale * rca[0], cb[1] - scale * rca[1], cb[2] - scale * rca[2]] };
}

/**
 * Per camera present in both sets (matched by `view`), the rotation error in degrees after aligning the
 * recovered set to the reference by a similarity on the camera centres.
 */
export function rotationErrorsDeg(recovered: readonly PosedCamera[], reference: readonly PosedCamera[]): number[] {
  const pairs = recovered
    .map((cam) => [cam, reference.find((r) => r.view === cam.view)] as const)
    .filter((pair): pair is readonly [PosedCamera, PosedCamera] => pair[1] !== undefined);
  const fit = alignSimilarity(
    pairs.map(([cam]) => cameraCentre(cam)),
    pairs.map(([, ref]) => cameraCentre(ref)),
  );
  // x_cam = R_est·X_est + t and X_est = Rᵀ(X_ref − T)/s, so the recovered rotation in the reference frame is R_est·Rᵀ.
  const back = transpose3(fit.rotation);
  return pairs.map(([cam, ref]) => rotationAngleDeg(mul3(mul3(cam.rotation, back), transpose3(ref.rotation))));
}
