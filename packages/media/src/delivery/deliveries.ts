import { DELIVERY_NAMES, withinBudget, type DeliveryBudget, type DeliveryBudgets, type DeliveryName } from './delivery-budgets.js';
import { decodeViews, FIDELITY_SIZE, FIDELITY_VIEWS, SSIM_FLOOR, viewsSsim, type Pixels, type ViewRenderer } from './delivery-fidelity.js';
import { PreparedMaster, timed, type DeliverySteps, type Squeeze } from './delivery-optimise.js';

export interface DeliveryFile {
  data: Buffer;
  bytes: number;
  triangles: number;
  maxTexturePx: number;
  /** Lowest per-view SSIM against the master over 8 views; 1 when the master itself is delivered. */
  ssim: number;
  /** The master's bytes unchanged (GLB deliveries only). */
  passthrough: boolean;
  overBudget: boolean;
}

export interface DeliveryWarning {
  code: 'over_budget';
  delivery: DeliveryName;
  bytes: number;
  message: string;
}

export interface DeliveryResult {
  web: DeliveryFile;
  mobile: DeliveryFile;
  usdz: DeliveryFile;
  warnings: DeliveryWarning[];
  /** Seconds per step (read, clean-up, simplify, textures, encode, usdz, render-master, render, ssim). */
  steps: DeliverySteps;
  /** Files drawn from 8 views for the fidelity check, the master included. */
  renders: number;
}

export interface DeliveryOptions {
  budgets: DeliveryBudgets;
  /**
   * Draws a candidate's views: the warm renderer, wherever it runs. Null when no browser is available: nothing
   * lighter can be checked, so a delivery over its budget is the master's.
   */
  render: ViewRenderer | null;
  /** The master's views, when whoever holds the master can draw it without it being handed over again. */
  renderMaster?: (views: number, size: number) => Promise<Buffer[]>;
  ssimFloor?: number;
  views?: number;
  size?: number;
}

// Textures are never made smaller than this, and a mesh never asked below this many triangles.
const MIN_TEXTURE_PX = 256;
const MIN_TRIANGLES = 500;
const MAX_TIGHTENINGS = 6;
const BACK_OFF = 1.6;

interface Built extends Squeeze {
  data: Buffer;
  preview: Buffer;
  triangles: number;
  maxTexturePx: number;
  textureBytes: number;
}

/**
 * Makes the `web`, `mobile` and `usdz` deliveries of a master GLB. A GLB delivery the master already fits
 * is the master, byte for byte. Otherwise the first attempt squeezes to the budget's triangles and texture
 * size, tightens further while the bytes are over, and the smallest attempt within the budget is rendered
 * beside the master; below the SSIM floor it backs off (more triangles, larger textures) one attempt at a
 * time until the floor holds. When the floor only holds over the budget, that file is delivered with an
 * `over_budget` warning; when nothing holds it, the master itself (or its plain USDZ).
 */
export async function makeDeliveries(master: Buffer, opts: DeliveryOptions): Promise<DeliveryResult> {
  const floor = opts.ssimFloor ?? SSIM_FLOOR;
  const views = opts.views ?? FIDELITY_VIEWS;
  const size = opts.size ?? FIDELITY_SIZE;
  const steps: DeliverySteps = {};
  const prepared = await PreparedMaster.read(master, steps);
  const render = opts.render;
  const renderMaster = opts.renderMaster ?? ((v: number, px: number) => render!(master, v, px));
  let renders = 0;
  // The master is drawn once for every candidate of every delivery, and only when something needs checking.
  let masterViews: Promise<Pixels[]> | null = null;
  const drawMaster = () => (masterViews ??= timed(steps, 'render-master', async () => (renders++, decodeViews(await renderMaster(views, size)))));
  const fidelity = render
    ? async (glb: Buffer): Promise<number> => {
        const a = await drawMaster();
        const b = await timed(steps, 'render', async () => (renders++, decodeViews(await render(glb, views, size))));
        return timed(steps, 'ssim', async () => viewsSsim(a, b));
      }
    : null;

  // The USDZ written straight from the master: the pass-through and the last resort for Quick Look.
  const plainUsdz = async (): Promise<Built> => ({ ...asMaster(), data: await prepared.plainUsdz() });
  const asMaster = (): Built => ({ data: master, preview: master, triangles: prepared.triangles, maxTexturePx: prepared.maxTexturePx, textureBytes: 0, ratio: 1, texturePx: prepared.maxTexturePx });
  // A master over a GLB budget will be checked: the browser draws it while this process builds the first candidate.
  if (fidelity && (!fits(asMaster(), opts.budgets.web) || !fits(asMaster(), opts.budgets.mobile))) drawMaster().catch(() => undefined);

  // The three run side by side: one builds (attempts are built one at a time) while another's views are drawn.
  const files = await Promise.all(
    DELIVERY_NAMES.map((name) => deliver(name === 'usdz' ? 'usdz' : 'glb', opts.budgets[name], { prepared, fidelity, floor, plainUsdz, asMaster })),
  );
  const out = {} as Record<DeliveryName, DeliveryFile>;
  const warnings: DeliveryWarning[] = [];
  for (const [i, name] of DELIVERY_NAMES.entries()) {
    const file = files[i];
    out[name] = file;
    if (file.overBudget) {
      warnings.push({
        code: 'over_budget',
        delivery: name,
        bytes: file.bytes,
        message: fidelity
          ? `The ${name} delivery is ${file.bytes} bytes (${file.triangles} triangles, ${file.maxTexturePx} px textures), over its budget: the smallest file that keeps SSIM ≥ ${floor}.`
          : `The ${name} delivery is ${file.bytes} bytes, over its budget: without a renderer (Chromium) no lighter file could be checked.`,
      });
    }
  }
  return { ...out, warnings, steps, renders };
}

interface Context {
  prepared: PreparedMaster;
  fidelity: ((glb: Buffer) => Promise<number>) | null;
  floor: number;
  plainUsdz: () => Promise<Built>;
  asMaster: () => Built;
}

function fits(b: Built, budget: DeliveryBudget): boolean {
  return withinBudget({ bytes: b.data.byteLength, triangles: b.triangles, maxTexturePx: b.maxTexturePx }, budget);
}

function file(b: Built, ssim: number, budget: DeliveryBudget, passthrough: boolean): DeliveryFile {
  return { data: b.data, bytes: b.data.byteLength, triangles: b.triangles, maxTexturePx: b.maxTexturePx, ssim, passthrough, overBudget: !fits(b, budget) };
}

async function deliver(kind: 'glb' | 'usdz', budget: DeliveryBudget, ctx: Context): Promise<DeliveryFile> {
  const { triangles, maxTexturePx } = ctx.prepared;
  if (kind === 'glb') {
    const whole = ctx.asMaster();
    if (fits(whole, budget)) return file(whole, 1, budget, true);
  } else if (maxTexturePx <= budget.maxTexturePx) {
    const plain = await ctx.plainUsdz();
    if (fits(plain, budget)) return file(plain, 1, budget, false);
  }

  const fallback = async () => file(kind === 'glb' ? ctx.asMaster() : await ctx.plainUsdz(), 1, budget, kind === 'glb');
  const fidelity = ctx.fidelity;
  if (!fidelity) return fallback();
  const build = async (s: Squeeze): Promise<Built> => ({ ...s, ...(await ctx.prepared.build(kind, s)) });
  const start: Squeeze = {
    ratio: budget.maxTriangles !== null && triangles > budget.maxTriangles ? budget.maxTriangles / triangles : 1,
    texturePx: Math.max(1, Math.min(maxTexturePx || budget.maxTexturePx, budget.maxTexturePx)),
  };
  // Tighten while the bytes are over, where the bytes are: the textures are halved while they are the larger part
  // (or alone over the budget); else the triangles are cut in proportion to what the geometry must lose (at least
  // halved, at most to an eighth), so a USDZ whose plain geometry is four times its budget takes one step, not six.
  const tried: Built[] = [await build(start)];
  for (let i = 0; i < MAX_TIGHTENINGS && !fits(tried[tried.length - 1], budget); i++) {
    const last = tried[tried.length - 1];
    const geometry = last.data.byteLength - last.textureBytes;
    const room = budget.maxBytes - last.textureBytes;
    const texturesFirst = room <= 0 || last.textureBytes >= geometry || (last.ratio * triangles) / 2 < MIN_TRIANGLES;
    const next: Squeeze =
      last.texturePx / 2 >= MIN_TEXTURE_PX && texturesFirst
        ? { ratio: last.ratio, texturePx: Math.floor(last.texturePx / 2) }
        : { ratio: last.ratio * Math.min(1 / 2, Math.max(1 / 8, (0.9 * room) / geometry)), texturePx: last.texturePx };
    if (next.ratio * triangles < MIN_TRIANGLES && next.texturePx === last.texturePx) break;
    tried.push(await build(next));
  }

  // From the smallest attempt back toward the master, the first that keeps the floor is delivered.
  for (let i = tried.length - 1; i >= 0; i--) {
    const ssim = await fidelity(tried[i].preview);
    if (ssim >= ctx.floor) return file(tried[i], ssim, budget, false);
  }
  let s: Squeeze = start;
  while (s.ratio < 1 || s.texturePx < maxTexturePx) {
    s = { ratio: Math.min(1, s.ratio * BACK_OFF), texturePx: Math.min(maxTexturePx, s.texturePx * 2) };
    const b = await build(s);
    const ssim = await fidelity(b.preview);
    if (ssim >= ctx.floor) return file(b, ssim, budget, false);
  }
  return fallback();
}
