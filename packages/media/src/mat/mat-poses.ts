import sharp from 'sharp';
import type { CameraRecovery, Mat3, PosedCamera, Vec3 } from '../poses/camera.js';
import { scaleIntrinsics } from '../poses/camera.js';
import { opencv, type Cv } from '../segment/opencv.js';
import { MAT_MARKER_MM, MAT_SQUARE_MM, MAT_SQUARES_X, MAT_SQUARES_Y, matCorners } from './board.js';

// Cameras from the capture mat: OpenCV's ChArUco detector finds the board's corners in each photo, one
// calibration over all photos gives the phone's focal length (a planar target seen from several tilts
// fixes it, as in Zhang's method), and each photo's pose follows. The frame is the mat's: metres, y up
// (the mat's normal), the mat's surface at y = 0, so up, floor and scale are all known.

/** Photos that show fewer corners than this are left out (a pose from fewer is unsteady). */
const MIN_CORNERS = 8;
/** A mat seen in fewer photos than this cannot pose a capture; the caller falls back to COLMAP. */
export const MIN_MAT_VIEWS = 3;
/** Detection runs on copies at most this side: corners stay sharp and phones' 12 MP photos stay cheap. */
const DETECT_MAX_SIDE = 2048;
/** A photo whose corners sit further than this (pixels, RMS) from the fitted camera was misread. */
const MAX_VIEW_ERROR_PX = 2;
/** A corner further than this (pixels) from the first fit was found on something else (the product's outline). */
const MAX_CORNER_ERROR_PX = 1.5;

export interface MatInput {
  images: readonly Buffer[];
  /** Photos not to look at (no usable cut-out); they count as offered but not placed. */
  skip?: ReadonlySet<number>;
}

interface Detection {
  view: number;
  width: number;
  height: number;
  displayWidth: number;
  displayHeight: number;
  ids: number[];
  points: number[];
}

type CvAny = Cv & Record<string, any>;
let detector: { cv: CvAny; detector: any } | null = null;

async function charucoDetector(): Promise<{ cv: CvAny; detector: any }> {
  if (detector) return detector;
  const { cv } = (await opencv()) as { cv: CvAny };
  const dictionary = cv.getPredefinedDictionary(cv.DICT_4X4_50);
  const board = new cv.aruco_CharucoBoard(new cv.Size(MAT_SQUARES_X, MAT_SQUARES_Y), MAT_SQUARE_MM / 1000, MAT_MARKER_MM / 1000, dictionary, new cv.Mat());
  const params = new cv.aruco_DetectorParameters();
  // Sub-pixel corners on the markers; the chessboard corners are refined by the ChArUco step itself.
  params.cornerRefinementMethod = cv.CORNER_REFINE_SUBPIX;
  // A corner next to one seen marker counts (OpenCV asks for two by default): the product hides markers, and a
  // mat seen at a slant loses its far ones; each corner is still refined on the image, and a misread photo is
  // dropped by its reprojection error below.
  const charuco = new cv.aruco_CharucoParameters();
  charuco.minMarkers = 1;
  detector = { cv, detector: new cv.aruco_CharucoDetector(board, charuco, params, new cv.aruco_RefineParameters(10, 3, true)) };
  return detector;
}

async function detect(view: number, image: Buffer): Promise<Detection | null> {
  const { cv, detector: charuco } = await charucoDetector();
  const oriented = sharp(image).rotate();
  const meta = await oriented.metadata();
  const { data, info } = await oriented
    .resize({ width: DETECT_MAX_SIDE, height: DETECT_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const swap = (meta.orientation ?? 1) >= 5;
  const gray = cv.matFromArray(info.height, info.width, cv.CV_8UC1, data);
  const corners = new cv.Mat();
  const ids = new cv.Mat();
  const markerCorners = new cv.MatVector();
  const markerIds = new cv.Mat();
  try {
    charuco.detectBoard(gray, corners, ids, markerCorners, markerIds);
    if (ids.rows < MIN_CORNERS) return null;
    return {
      view,
      width: info.width,
      height: info.height,
      displayWidth: swap ? meta.height! : meta.width!,
      displayHeight: swap ? meta.width! : meta.height!,
      ids: Array.from(ids.data32S as Int32Array),
      points: Array.from(corners.data32F as Float32Array),
    };
  } finally {
    for (const m of [gray, corners, ids, markerCorners, markerIds]) m.delete();
  }
}

/** Corners not all on one line or one row: a line of corners leaves the pose free to spin about it. */
function spread(ids: readonly number[]): boolean {
  const rows = new Set(ids.map((id) => Math.floor(id / (MAT_SQUARES_X - 1))));
  const cols = new Set(ids.map((id) => id % (MAT_SQUARES_X - 1)));
  return rows.size >= 2 && cols.size >= 2;
}

interface Calibration {
  fx: number;
  cx: number;
  cy: number;
  poses: { rvec: number[]; tvec: number[]; error: number }[];
}

/** One pinhole camera for all the photos (one phone), principal point at the centre, no distortion. */
function calibrate(cv: CvAny, found: readonly Detection[], width: number, height: number): Calibration | null {
  const corners3d = matCorners();
  const objectPoints = new cv.MatVector();
  const imagePoints = new cv.MatVector();
  const owned: any[] = [];
  for (const d of found) {
    // The board's own frame (x right, y down the page, z into it), which OpenCV's corner numbering uses.
    const obj = d.ids.flatMap((id) => {
      const [x, , z] = corners3d[id];
      return [x, z, 0];
    });
    const o = cv.matFromArray(d.ids.length, 1, cv.CV_32FC3, obj);
    const p = cv.matFromArray(d.ids.length, 1, cv.CV_32FC2, d.points);
    objectPoints.push_back(o);
    imagePoints.push_back(p);
    owned.push(o, p);
  }
  const guess = Math.max(width, height);
  // The detector finds an edge drawn at k px at k (mat.test.ts): pixel centres at integer + 0.5, as in
  // PosedCamera, so the image's centre is at w / 2.
  const camera = cv.matFromArray(3, 3, cv.CV_64F, [guess, 0, width / 2, 0, guess, height / 2, 0, 0, 1]);
  const dist = cv.Mat.zeros(1, 5, cv.CV_64F);
  const rvecs = new cv.MatVector();
  const tvecs = new cv.MatVector();
  const stdIn = new cv.Mat();
  const stdEx = new cv.Mat();
  const perView = new cv.Mat();
  owned.push(objectPoints, imagePoints, camera, dist, rvecs, tvecs, stdIn, stdEx, perView);
  const flags =
    cv.CALIB_USE_INTRINSIC_GUESS |
    cv.CALIB_FIX_PRINCIPAL_POINT |
    cv.CALIB_FIX_ASPECT_RATIO |
    cv.CALIB_ZERO_TANGENT_DIST |
    cv.CALIB_FIX_K1 |
    cv.CALIB_FIX_K2 |
    cv.CALIB_FIX_K3;
  try {
    const criteria = new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, 60, 1e-9);
    cv.calibrateCameraExtended(objectPoints, imagePoints, new cv.Size(width, height), camera, dist, rvecs, tvecs, stdIn, stdEx, perView, flags, criteria);
    const k = Array.from(camera.data64F as Float64Array);
    if (!(k[0] > 0) || !Number.isFinite(k[0])) return null;
    const errors = Array.from(perView.data64F as Float64Array);
    const poses = found.map((_, i) => ({
      rvec: Array.from(rvecs.get(i).data64F as Float64Array),
      tvec: Array.from(tvecs.get(i).data64F as Float64Array),
      error: errors[i],
    }));
    return { fx: k[0], cx: k[2], cy: k[5], poses };
  } catch {
    return null;
  } finally {
    for (const m of owned) m.delete();
  }
}

/** Rotation matrix (row-major) from a Rodrigues vector. */
function rodrigues(v: readonly number[]): Mat3 {
  const theta = Math.hypot(v[0], v[1], v[2]);
  if (theta < 1e-12) return [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const [x, y, z] = [v[0] / theta, v[1] / theta, v[2] / theta];
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const t = 1 - c;
  return [t * x * x + c, t * x * y - s * z, t * x * z + s * y, t * x * y + s * z, t * y * y + c, t * y * z - s * x, t * x * z - s * y, t * y * z + s * x, t * z * z + c];
}

/** The detection without the corners that sit off its camera from the first fit; null when too few remain. */
function withoutStrayCorners(d: Detection, cal: Calibration, pose: Calibration['poses'][number]): Detection | null {
  const r = rodrigues(pose.rvec);
  const t = pose.tvec;
  const corners3d = matCorners();
  const ids: number[] = [];
  const points: number[] = [];
  d.ids.forEach((id, k) => {
    // The board's frame, as in calibrate().
    const [x, , y] = corners3d[id];
    const cx = r[0] * x + r[1] * y + t[0];
    const cy = r[3] * x + r[4] * y + t[1];
    const cz = r[6] * x + r[7] * y + t[2];
    const [u, v] = [d.points[2 * k], d.points[2 * k + 1]];
    if (Math.hypot((cal.fx * cx) / cz + cal.cx - u, (cal.fx * cy) / cz + cal.cy - v) <= MAX_CORNER_ERROR_PX) {
      ids.push(id);
      points.push(u, v);
    }
  });
  return ids.length >= MIN_CORNERS && spread(ids) ? { ...d, ids, points } : null;
}

/**
 * Board frame (x right, y down the page, z into the paper) → the mat's frame (x right, y up, z down the
 * page): (x, y, z)_board = (x, z, −y)_mat, so R = R_board·B with B's rows (1,0,0), (0,0,1), (0,−1,0).
 */
function toMatFrame(rBoard: Mat3, tBoard: readonly number[]): { rotation: Mat3; translation: Vec3 } {
  const b = [1, 0, 0, 0, 0, 1, 0, -1, 0];
  const rotation = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => rBoard[i * 3] * b[j] + rBoard[i * 3 + 1] * b[3 + j] + rBoard[i * 3 + 2] * b[6 + j]));
  return { rotation: rotation as Mat3, translation: [tBoard[0], tBoard[1], tBoard[2]] };
}

/**
 * Cameras for the photos that show the capture mat, in the mat's metric frame. Fewer than MIN_MAT_VIEWS
 * placed photos means "no mat": the answer then has fewer cameras and the caller uses COLMAP instead.
 */
export async function recoverCamerasFromMat(input: MatInput): Promise<CameraRecovery> {
  const started = performance.now();
  const { cv } = await charucoDetector();
  const found: Detection[] = [];
  for (let view = 0; view < input.images.length; view++) {
    if (input.skip?.has(view)) continue;
    const d = await detect(view, input.images[view]);
    if (d && spread(d.ids)) found.push(d);
  }
  const timings: Record<string, number> = { mat_detection: (performance.now() - started) / 1000 };
  const empty: CameraRecovery = { cameras: [], viewsTotal: input.images.length, source: 'mat', timings };
  // One phone: the photos of the most common size share the calibration; the others are left out.
  const sizes = new Map<string, Detection[]>();
  for (const d of found) sizes.set(`${d.width}x${d.height}`, [...(sizes.get(`${d.width}x${d.height}`) ?? []), d]);
  const group = [...sizes.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  if (group.length < MIN_MAT_VIEWS) return empty;
  let kept = group;
  let calibration = calibrate(cv, kept, kept[0].width, kept[0].height);
  // A corner the product hides can still be "found" on the product's outline next to a seen marker: drop the
  // corners that sit off the first fit, then fit again.
  if (calibration) {
    const first = calibration;
    kept = kept.map((d, i) => withoutStrayCorners(d, first, first.poses[i])).filter((d): d is Detection => d !== null);
    calibration = kept.length >= MIN_MAT_VIEWS ? calibrate(cv, kept, kept[0].width, kept[0].height) : null;
  }
  // A misread photo drags the shared focal length: drop it and fit again.
  if (calibration && calibration.poses.some((p) => p.error > MAX_VIEW_ERROR_PX)) {
    kept = kept.filter((_, i) => calibration!.poses[i].error <= MAX_VIEW_ERROR_PX);
    calibration = kept.length >= MIN_MAT_VIEWS ? calibrate(cv, kept, kept[0].width, kept[0].height) : null;
  }
  timings.mat_calibration = (performance.now() - started) / 1000 - timings.mat_detection;
  if (!calibration) return empty;
  const cal = calibration;
  const cameras: PosedCamera[] = kept.map((d, i) => {
    const { rotation, translation } = toMatFrame(rodrigues(cal.poses[i].rvec), cal.poses[i].tvec);
    const atDetection: PosedCamera = { view: d.view, width: d.width, height: d.height, fx: cal.fx, fy: cal.fx, cx: cal.cx, cy: cal.cy, k1: 0, k2: 0, rotation, translation };
    return scaleIntrinsics(atDetection, d.displayWidth, d.displayHeight);
  });
  return { ...empty, cameras, floor: { normal: [0, 1, 0], offset: 0 }, metresPerUnit: 1 };
}
