import type { Document, Node, Primitive, Scene } from '@gltf-transform/core';
import { influenceSets, jointMatrices, skinInto } from './model-bounds.js';

/**
 * For formats without skins (USDZ here): each skinned mesh becomes a plain mesh in its rest pose, placed by a new
 * node at the scene's root, so it shows where a glTF viewer draws it (a rig whose armature scales or turns the mesh
 * included). Changes `doc`; call it after the GLB has been written.
 */
export function bakeSkinsAtRest(doc: Document, scene: Scene): void {
  const skinned: Node[] = [];
  scene.traverse((node) => {
    if (node.getMesh() && node.getSkin()) skinned.push(node);
  });
  for (const node of skinned) {
    const joints = jointMatrices(node)!;
    // Normals turn with the joints but do not move: the same matrices without their translation.
    const turns = joints.map((m) => [...m.slice(0, 12), 0, 0, 0, 1]);
    const mesh = node.getMesh()!;
    const baked = doc.createMesh(mesh.getName());
    for (const prim of mesh.listPrimitives()) baked.addPrimitive(bakePrimitive(doc, prim, joints, turns));
    node.setMesh(null);
    scene.addChild(doc.createNode(node.getName()).setMesh(baked));
  }
}

function bakePrimitive(doc: Document, prim: Primitive, joints: number[][], turns: number[][]): Primitive {
  const copy = prim.clone();
  const sets = influenceSets(prim);
  for (const [semantic, matrices, normalise] of [['POSITION', joints, false], ['NORMAL', turns, true]] as const) {
    const source = prim.getAttribute(semantic);
    if (!source) continue;
    const out = new Float32Array(source.getCount() * 3);
    const local: number[] = [];
    const point = [0, 0, 0];
    for (let v = 0; v < source.getCount(); v++) {
      source.getElement(v, local);
      point[0] = point[1] = point[2] = 0;
      skinInto(point, local, v, matrices, sets);
      const length = normalise ? Math.hypot(point[0]!, point[1]!, point[2]!) || 1 : 1;
      out.set([point[0]! / length, point[1]! / length, point[2]! / length], v * 3);
    }
    copy.setAttribute(semantic, doc.createAccessor().setType('VEC3').setArray(out).setBuffer(source.getBuffer()));
  }
  for (let i = 0; i < sets.length; i++) copy.setAttribute(`JOINTS_${i}`, null).setAttribute(`WEIGHTS_${i}`, null);
  return copy;
}
