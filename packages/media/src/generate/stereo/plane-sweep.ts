// Plane-sweep stereo for one photo: for each pixel of the product, the depth whose fronto-parallel plane makes
// the photo's patch look most like its neighbours' (zero-mean normalised cross-correlation over a window),
// searched only between the hull's near and far depths at that pixel.
//
// `sweepDepth` runs inside worker threads, whose source is this function's own text: it must stay
// self-contained (no imports, no module-level names), and its data plain typed arrays.

/** A photo as the sweep sees it: grey levels at the stereo size and its camera (x_cam = R·X + t). */
export interface SweepImage {
  width: number;
  height: number;
  gray: Uint8Array;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  rotation: number[];
  translation: number[];
}

export interface SweepTask {
  ref: number;
  neighbours: number[];
  /** The hull's depth range per pixel of the reference (stereo size); Infinity / -Infinity off the hull. */
  near: Float32Array;
  far: Float32Array;
  /** 1 where the cut-out says product. */
  mask: Uint8Array;
  /** Window half-size, pixels. */
  radius: number;
  maxPlanes: number;
  /** Lowest accepted correlation (mean of the best two neighbours). */
  minScore: number;
  /** Lowest grey-level standard deviation in the window (0..255): flatter is textureless. */
  minTexture: number;
}

export interface SweepResult {
  /** Camera-z depth per pixel, 0 where nothing was measured. */
  depth: Float32Array;
  score: Float32Array;
  /** Grey-level standard deviation of the window once its ramp is taken out (0..255), where a depth was measured. */
  texture: Float32Array;
}

export function sweepDepth(images: readonly SweepImage[], task: SweepTask): SweepResult {
  const ref = images[task.ref];
  const { width: w, height: h } = ref;
  const n = w * h;
  const depth = new Float32Array(n);
  const score = new Float32Array(n);
  const texture = new Float32Array(n);
  const r = task.radius;
  // The work area: the product's box, plus the window.
  let [x0, y0, x1, y1, dmin, dmax] = [w, h, -1, -1, Infinity, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!task.mask[i] || !(task.far[i] > 0)) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (task.near[i] < dmin) dmin = task.near[i];
      if (task.far[i] > dmax) dmax = task.far[i];
    }
  }
  if (x1 < 0 || task.neighbours.length === 0) return { depth, score, texture };
  x0 = Math.max(0, x0 - r);
  y0 = Math.max(0, y0 - r);
  x1 = Math.min(w - 1, x1 + r);
  y1 = Math.min(h - 1, y1 + r);
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const bn = bw * bh;
  const margin = 0.01 * dmin;
  dmin = Math.max(1e-6, dmin - margin);
  dmax += margin;

  // Box sums over the window, separable: rows then columns, over the rectangle ax..bx × ay..by of the work area
  // (inclusive), which stands for the whole of it: a window reaching past its edge is cut there.
  const tmp = new Float64Array(bn);
  const boxSum = (src: Float64Array, out: Float64Array, ax: number, ay: number, bx: number, by: number) => {
    for (let y = ay; y <= by; y++) {
      const row = y * bw;
      let s = 0;
      for (let x = ax; x <= ax + r && x <= bx; x++) s += src[row + x];
      for (let x = ax; x <= bx; x++) {
        tmp[row + x] = s;
        if (x + r + 1 <= bx) s += src[row + x + r + 1];
        if (x - r >= ax) s -= src[row + x - r];
      }
    }
    for (let x = ax; x <= bx; x++) {
      let s = 0;
      for (let y = ay; y <= ay + r && y <= by; y++) s += tmp[y * bw + x];
      for (let y = ay; y <= by; y++) {
        out[y * bw + x] = s;
        if (y + r + 1 <= by) s += tmp[(y + r + 1) * bw + x];
        if (y - r >= ay) s -= tmp[(y - r) * bw + x];
      }
    }
  };

  // The reference's window statistics, once.
  const I = new Float64Array(bn);
  const I2 = new Float64Array(bn);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const v = ref.gray[(y + y0) * w + x + x0];
      I[y * bw + x] = v;
      I2[y * bw + x] = v * v;
    }
  }
  const sumI = new Float64Array(bn);
  const sumI2 = new Float64Array(bn);
  boxSum(I, sumI, 0, 0, bw - 1, bh - 1);
  boxSum(I2, sumI2, 0, 0, bw - 1, bh - 1);
  // Texture is what is left of a window once its best-fitting ramp is taken out. Correlation ignores gain and
  // offset, and a ramp shifted along itself is the same ramp plus an offset: a smoothly shaded surface
  // (plaster, a glazed side) correlates just as well at any depth, and only what departs from the ramp can
  // tell depths apart. The ramp's two slopes come from the window's sums of v·x and v·y about its centre
  // (x and y are orthogonal over a square window).
  const area = (2 * r + 1) * (2 * r + 1);
  const residualStd = new Float32Array(bn);
  {
    const Ix = new Float64Array(bn);
    const Iy = new Float64Array(bn);
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        Ix[y * bw + x] = I[y * bw + x] * x;
        Iy[y * bw + x] = I[y * bw + x] * y;
      }
    }
    const sumIx = new Float64Array(bn);
    const sumIy = new Float64Array(bn);
    boxSum(Ix, sumIx, 0, 0, bw - 1, bh - 1);
    boxSum(Iy, sumIy, 0, 0, bw - 1, bh - 1);
    // Σ over the window of (x' − x)², the same for y.
    const spread = ((2 * r + 1) * r * (r + 1) * (2 * r + 1)) / 3;
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = y * bw + x;
        const sx = sumIx[i] - x * sumI[i];
        const sy = sumIy[i] - y * sumI[i];
        const residual = sumI2[i] - (sumI[i] * sumI[i]) / area - (sx * sx + sy * sy) / spread;
        residualStd[i] = Math.sqrt(Math.max(0, residual) / area);
      }
    }
  }

  // Each reference pixel's ray in each neighbour's camera: X_j = d·A + b.
  const rays = task.neighbours.map((j) => {
    const nb = images[j];
    const R = ref.rotation;
    const Rj = nb.rotation;
    // rel = Rj·Rᵀ
    const rel = new Float64Array(9);
    for (let a = 0; a < 3; a++) for (let c = 0; c < 3; c++) rel[a * 3 + c] = Rj[a * 3] * R[c * 3] + Rj[a * 3 + 1] * R[c * 3 + 1] + Rj[a * 3 + 2] * R[c * 3 + 2];
    const t = ref.translation;
    const b = [0, 1, 2].map((a) => nb.translation[a] - (rel[a * 3] * t[0] + rel[a * 3 + 1] * t[1] + rel[a * 3 + 2] * t[2]));
    const A = new Float64Array(bn * 3);
    for (let y = 0; y < bh; y++) {
      const v = (y + y0 + 0.5 - ref.cy) / ref.fy;
      for (let x = 0; x < bw; x++) {
        const u = (x + x0 + 0.5 - ref.cx) / ref.fx;
        const k = (y * bw + x) * 3;
        for (let a = 0; a < 3; a++) A[k + a] = rel[a * 3] * u + rel[a * 3 + 1] * v + rel[a * 3 + 2];
      }
    }
    return { nb, A, b };
  });

  // Planes evenly spaced in inverse depth, about one pixel of shift apart in the widest neighbour.
  const centre = (((y0 + y1) >> 1) - y0) * bw + (((x0 + x1) >> 1) - x0);
  let shift = 0;
  for (const { nb, A, b } of rays) {
    const at = (d: number) => {
      const X = A[centre * 3] * d + b[0];
      const Y = A[centre * 3 + 1] * d + b[1];
      const Z = A[centre * 3 + 2] * d + b[2];
      return [(nb.fx * X) / Z, (nb.fy * Y) / Z];
    };
    const [p, q] = [at(dmin), at(dmax)];
    shift = Math.max(shift, Math.hypot(p[0] - q[0], p[1] - q[1]));
  }
  const planes = Math.max(16, Math.min(task.maxPlanes, Math.ceil(shift)));
  const planeDepth = (k: number) => 1 / (1 / dmin - ((1 / dmin - 1 / dmax) * k) / (planes - 1));

  const J = new Float64Array(bn);
  const J2 = new Float64Array(bn);
  const IJ = new Float64Array(bn);
  const valid = new Float64Array(bn);
  const sumJ = new Float64Array(bn);
  const sumJ2 = new Float64Array(bn);
  const sumIJ = new Float64Array(bn);
  const sumValid = new Float64Array(bn);
  const ncc = rays.map(() => new Float32Array(bn));

  const best = new Float32Array(bn).fill(-2);
  const bestPlane = new Int32Array(bn).fill(-1);
  const bestPrev = new Float32Array(bn);
  const bestNext = new Float32Array(bn);
  let prev = new Float32Array(bn).fill(-2);
  let cur = new Float32Array(bn);
  for (let k = 0; k < planes; k++) {
    const d = planeDepth(k);
    // Only the pixels whose hull range holds this plane are scored, so only their windows are matched: the
    // rectangle round them, widened by the window. A plane crosses a slice of the product (the near planes its
    // nearest parts), and this rectangle is on average a fraction of the work area.
    let [ax, ay, bx, by] = [bw, bh, -1, -1];
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const full = (y + y0) * w + x + x0;
        if (!task.mask[full] || d < task.near[full] - margin || d > task.far[full] + margin) continue;
        if (x < ax) ax = x;
        if (x > bx) bx = x;
        if (y < ay) ay = y;
        if (y > by) by = y;
      }
    }
    if (bx >= 0) {
      ax = Math.max(0, ax - r);
      ay = Math.max(0, ay - r);
      bx = Math.min(bw - 1, bx + r);
      by = Math.min(bh - 1, by + r);
    }
    for (let q = 0; q < rays.length && bx >= 0; q++) {
      const { nb, A, b } = rays[q];
      const g = nb.gray;
      const nw = nb.width;
      const nh = nb.height;
      for (let y = ay; y <= by; y++) {
        for (let i = y * bw + ax, end = y * bw + bx; i <= end; i++) {
          const X = A[i * 3] * d + b[0];
          const Y = A[i * 3 + 1] * d + b[1];
          const Z = A[i * 3 + 2] * d + b[2];
          const px = (nb.fx * X) / Z + nb.cx - 0.5;
          const py = (nb.fy * Y) / Z + nb.cy - 0.5;
          const ix = Math.floor(px);
          const iy = Math.floor(py);
          if (!(Z > 0) || ix < 0 || iy < 0 || ix >= nw - 1 || iy >= nh - 1) {
            J[i] = 0;
            J2[i] = 0;
            IJ[i] = 0;
            valid[i] = 0;
            continue;
          }
          const fx = px - ix;
          const fy = py - iy;
          const o = iy * nw + ix;
          const top = g[o] + (g[o + 1] - g[o]) * fx;
          const bottom = g[o + nw] + (g[o + nw + 1] - g[o + nw]) * fx;
          const v = top + (bottom - top) * fy;
          J[i] = v;
          J2[i] = v * v;
          IJ[i] = v * I[i];
          valid[i] = 1;
        }
      }
      boxSum(J, sumJ, ax, ay, bx, by);
      boxSum(J2, sumJ2, ax, ay, bx, by);
      boxSum(IJ, sumIJ, ax, ay, bx, by);
      boxSum(valid, sumValid, ax, ay, bx, by);
      const out = ncc[q];
      // Outside the rectangle `out` keeps an older plane's scores: no pixel there is scored at this plane.
      for (let y = ay; y <= by; y++) {
        for (let i = y * bw + ax, end = y * bw + bx; i <= end; i++) {
          if (sumValid[i] < area - 0.5) {
            out[i] = -1;
            continue;
          }
          const vi = sumI2[i] - (sumI[i] * sumI[i]) / area;
          const vj = sumJ2[i] - (sumJ[i] * sumJ[i]) / area;
          const cov = sumIJ[i] - (sumI[i] * sumJ[i]) / area;
          out[i] = residualStd[i] > task.minTexture && vj > 1e-6 ? cov / Math.sqrt(vi * vj) : -1;
        }
      }
    }
    // A pixel's score at this plane: the mean of its two best neighbours (one may not see it).
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = y * bw + x;
        const full = (y + y0) * w + x + x0;
        if (!task.mask[full] || d < task.near[full] - margin || d > task.far[full] + margin) {
          cur[i] = -2;
          continue;
        }
        let s1 = -1;
        let s2 = -1;
        for (let q = 0; q < rays.length; q++) {
          const s = ncc[q][i];
          if (s > s1) {
            s2 = s1;
            s1 = s;
          } else if (s > s2) s2 = s;
        }
        cur[i] = rays.length > 1 ? (s1 + s2) / 2 : s1;
      }
    }
    for (let i = 0; i < bn; i++) {
      if (bestPlane[i] === k - 1) bestNext[i] = cur[i];
      if (cur[i] > best[i]) {
        best[i] = cur[i];
        bestPlane[i] = k;
        bestPrev[i] = prev[i];
        bestNext[i] = -2;
      }
    }
    [prev, cur] = [cur, prev];
  }

  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = y * bw + x;
      if (bestPlane[i] < 0 || best[i] < task.minScore) continue;
      // Sub-plane: the vertex of the parabola through the best plane and its two neighbours.
      let offset = 0;
      const [a, c] = [bestPrev[i], bestNext[i]];
      if (a > -2 && c > -2) {
        const denom = a - 2 * best[i] + c;
        if (denom < 0) offset = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denom));
      }
      const k = bestPlane[i] + offset;
      const full = (y + y0) * w + x + x0;
      depth[full] = 1 / (1 / dmin - ((1 / dmin - 1 / dmax) * k) / (planes - 1));
      score[full] = best[i];
      texture[full] = residualStd[i];
    }
  }
  return { depth, score, texture };
}
