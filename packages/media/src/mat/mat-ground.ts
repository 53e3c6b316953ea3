import { cameraCentre, type CameraRecovery, type PosedCamera } from '../poses/camera.js';

// A recovery that measured the ground (the capture mat: its plane and its metres) tells the carving where
// the floor is and how big a model unit is. The carving works in its own frame (origin at the product, one
// unit = the cameras' mean distance, levelled to the given up); both frames hold the same cameras, so the
// cameras' centres carry the plane and the unit from one frame to the other.

export interface Ground {
  /** Height of the floor in the model frame (y up). */
  floorY: number;
  /** Metres per model unit, when the recovery measured metres. */
  metresPerUnit: number | null;
}

/**
 * The floor and unit in the model frame, from the same cameras before (`world`) and after (`model`) the
 * frame change; null when the recovery measured no floor. The model frame must be levelled to the floor's
 * normal (it was built with that normal as up).
 */
export function groundInModelFrame(recovery: Pick<CameraRecovery, 'floor' | 'metresPerUnit'>, world: readonly PosedCamera[], model: readonly PosedCamera[]): Ground | null {
  if (!recovery.floor || world.length < 2) return null;
  const cw = world.map(cameraCentre);
  const cm = model.map(cameraCentre);
  // The frame change is a rotation, a shift and one scale: the farthest pair of cameras measures the scale best.
  let best = 0;
  let scale = 0;
  for (let a = 0; a < cw.length; a++) {
    for (let b = a + 1; b < cw.length; b++) {
      const dw = Math.hypot(cw[a][0] - cw[b][0], cw[a][1] - cw[b][1], cw[a][2] - cw[b][2]);
      if (dw > best) {
        best = dw;
        scale = Math.hypot(cm[a][0] - cm[b][0], cm[a][1] - cm[b][1], cm[a][2] - cm[b][2]) / dw;
      }
    }
  }
  if (!(scale > 0)) return null;
  const { normal, offset } = recovery.floor;
  // Each camera's height above the floor, in model units, set under its model-frame height.
  const floorY = cw.reduce((s, c, k) => s + cm[k][1] - scale * (normal[0] * c[0] + normal[1] * c[1] + normal[2] * c[2] - offset), 0) / cw.length;
  return { floorY, metresPerUnit: recovery.metresPerUnit ? recovery.metresPerUnit / scale : null };
}
