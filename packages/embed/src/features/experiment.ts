export type Arm = '3d' | 'poster';

/** A running experiment, as `GET /embed/products/{id}` names it. */
export interface Experiment {
  id: string;
  arms: Record<Arm, number>;
}

/**
 * The arm of a viewer: FNV-1a over `viewer_id:experiment_id`, finished with MurmurHash3's mix so every bit of
 * the input moves every bit of the output, read as a number in [0, 1) and compared with the 3d arm's share.
 * No randomness and no state: the same viewer sees the same arm on every page and every visit, and a new
 * experiment shuffles viewers afresh.
 */
export function armFor(viewerId: string, experiment: Experiment): Arm {
  const text = `${viewerId}:${experiment.id}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32 < experiment.arms['3d'] ? '3d' : 'poster';
}
