// Types for variety.mjs, which the server's and the media engine's tests import.
import type { Document, NodeIO } from '@gltf-transform/core';

export interface VarietyModel {
  name: string;
  glb: Buffer;
  /** true size in metres along x, y, z, from the construction */
  trueSize: [number, number, number];
  /** triangles as drawn (instances counted) */
  triangles: number;
  /** extensions the GLB uses */
  extensions: string[];
}

export const MODEL_KINDS: readonly { name: string }[];
export function varietyIO(): Promise<NodeIO>;
export function makeModel(name: string, options?: { largeTriangles?: number }): Promise<VarietyModel>;
export function restPoseSize(doc: Document): [number, number, number];
export function sizeError(measured: readonly number[], truth: readonly number[]): number;
export function drawnTriangles(doc: Document): number;
export function usdzPointsSize(usdz: Buffer): [number, number, number];
