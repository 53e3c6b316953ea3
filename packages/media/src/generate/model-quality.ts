// What a model's record says about how it was made and how well it agrees with its photos; one shape for
// every model, generated or imported, so a shop can tell a checked model from an assumed one.

export type QualityMethod = 'posed_stereo' | 'posed_hull' | 'turntable_hull' | 'relief_card' | 'external' | 'imported';
export type QualityPoseSource = 'sfm' | 'mat' | 'given' | 'assumed' | null;
export type ScaleSource = 'given' | 'mat' | 'assumed' | 'file';

export interface ModelQuality {
  method: QualityMethod;
  pose_source: QualityPoseSource;
  views_used: number;
  views_total: number;
  /** Where the cameras stood round the product (y up): the widest azimuth gap and the elevations. */
  coverage: { largest_gap_deg: number; elevation_min_deg: number; elevation_max_deg: number } | null;
  /** Agreement with photos the model was made without (leave one out, up to 8 views spread around). */
  heldout_iou: { median: number; min: number; views: number } | null;
  /** Agreement with the photos the model was made from. */
  silhouette_iou: { median: number; min: number } | null;
  /** Share of the surface measured by multi-view stereo; null when stereo did not run. */
  stereo_coverage: number | null;
  largest_piece: number | null;
  scale_source: ScaleSource;
}

/** The quality of a model that was imported, not generated: nothing to compare, its size is the file's. */
export function importedQuality(): ModelQuality {
  return {
    method: 'imported',
    pose_source: null,
    views_used: 0,
    views_total: 0,
    coverage: null,
    heldout_iou: null,
    silhouette_iou: null,
    stereo_coverage: null,
    largest_piece: null,
    scale_source: 'file',
  };
}

/** Rounded for the record: three decimals are plenty for a ratio read by people. */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
