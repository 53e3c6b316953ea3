import type { Accessor, Node, Scene } from '@gltf-transform/core';

export type Mat4 = number[];
export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

const IDENTITY: Mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** a × b, column-major as glTF stores matrices. */
function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += a[k * 4 + r]! * b[c * 4 + k]!;
      out[c * 4 + r] = sum;
    }
  }
  return out;
}

export function transformInto(out: number[], m: Mat4, p: number[], weight: number): void {
  const [x, y, z] = p as [number, number, number];
  out[0]! += weight * (m[0]! * x + m[4]! * y + m[8]! * z + m[12]!);
  out[1]! += weight * (m[1]! * x + m[5]! * y + m[9]! * z + m[13]!);
  out[2]! += weight * (m[2]! * x + m[6]! * y + m[10]! * z + m[14]!);
}

/** Each joint's world matrix times its inverse bind matrix: where the skin puts a vertex bound to that joint. */
export function jointMatrices(node: Node): Mat4[] | null {
  const skin = node.getSkin();
  if (!skin) return null;
  const inverseBind = skin.getInverseBindMatrices();
  return skin.listJoints().map((joint, j) => multiply(joint.getWorldMatrix() as Mat4, inverseBind ? inverseBind.getElement(j, []) : IDENTITY));
}

/** The (joint, weight) sets of a skinned primitive, JOINTS_0/WEIGHTS_0, JOINTS_1/WEIGHTS_1, … */
export function influenceSets(prim: { getAttribute(name: string): Accessor | null }): [Accessor, Accessor][] {
  const sets: [Accessor, Accessor][] = [];
  for (let i = 0; ; i++) {
    const joints = prim.getAttribute(`JOINTS_${i}`);
    const weights = prim.getAttribute(`WEIGHTS_${i}`);
    if (!joints || !weights) return sets;
    sets.push([joints, weights]);
  }
}

const joint: number[] = [];
const weight: number[] = [];

/** Adds to `out` where the skin puts vertex `v` at `local`: Σ weight × joint matrix × local. */
export function skinInto(out: number[], local: number[], v: number, joints: Mat4[], sets: [Accessor, Accessor][]): void {
  for (const [jointsAccessor, weightsAccessor] of sets) {
    jointsAccessor.getElement(v, joint);
    weightsAccessor.getElement(v, weight);
    for (let k = 0; k < joint.length; k++) {
      const matrix = joints[joint[k]!];
      if (weight[k] && matrix) transformInto(out, matrix, local, weight[k]!);
    }
  }
}

/**
 * The world-space bounding box of what a viewer draws at rest (no animation applied). A mesh is placed by its
 * node's world matrix; a skinned mesh by its joints (Σ weight × joint world × inverse bind matrix), ignoring the
 * skinned node's own transform as the glTF spec says. A rig whose armature scales or turns the mesh (a Z-up rig
 * in centimetres) is measured as it is shown, not as its raw vertices. Min and max stay ±Infinity without geometry.
 */
export function restPoseBounds(scene: Scene): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  const point = [0, 0, 0];
  const local: number[] = [];
  scene.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    const world = node.getWorldMatrix() as Mat4;
    const joints = jointMatrices(node);
    for (const prim of mesh.listPrimitives()) {
      const position = prim.getAttribute('POSITION');
      if (!position) continue;
      const sets = joints ? influenceSets(prim) : [];
      const indices = prim.getIndices();
      const count = indices ? indices.getCount() : position.getCount();
      for (let i = 0; i < count; i++) {
        const v = indices ? indices.getScalar(i) : i;
        position.getElement(v, local);
        point[0] = point[1] = point[2] = 0;
        if (!joints || sets.length === 0) {
          transformInto(point, world, local, 1);
        } else {
          skinInto(point, local, v, joints, sets);
        }
        for (let a = 0; a < 3; a++) {
          if (point[a]! < min[a]!) min[a] = point[a]!;
          if (point[a]! > max[a]!) max[a] = point[a]!;
        }
      }
    }
  });
  return { min, max };
}
