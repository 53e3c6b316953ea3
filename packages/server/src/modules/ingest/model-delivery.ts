import { resolveBudgets, type DeliveryBudgetOverrides, type DeliveryResult } from '@plinth/media';
import type { Deps } from '../../deps.js';
import { browserAssetKey, privateProductKey } from '../../platform/storage/names.js';
import { toolCapability } from '../../platform/tools.js';
import type { ModelWarningRecord, ProductRecord, StoredDelivery, StoredModel } from '../products/index.js';

// Small buffers cross the sandbox's IPC as plain Uint8Arrays.
const asBuffer = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/** One candidate's 8 views for the fidelity check; a heavy model's take seconds on a CPU, more on a busy one. */
const DELIVERY_RENDER_TIMEOUT_MS = 120_000;

export interface DeliveredFiles {
  masterKey: string;
  delivery: StoredDelivery;
  warnings: ModelWarningRecord[];
}

/**
 * Keeps `master` (a normalised GLB) under a private key and stores its web, mobile and USDZ deliveries
 * (DESIGN section 14) as browser assets. A mobile file identical to the web one shares its key.
 */
export async function deliverModel(
  deps: Pick<Deps, 'config' | 'storage' | 'media' | 'logger'>,
  product: ProductRecord,
  master: Buffer,
  overrides: DeliveryBudgetOverrides | null | undefined,
  /** The master's key when it is already stored (a re-optimisation); else it is stored now. */
  storedMasterKey: string | null = null,
): Promise<DeliveredFiles> {
  const chromium = await toolCapability(deps.config.tools, 'chromium');
  if (!chromium.available) deps.logger.warn({ productId: product.id }, 'model deliveries unchecked: chromium is not installed, so only files already within budget are made lighter (none)');
  // The fidelity renders run on this worker's warm browser (render.turntable is drawn here, not in the child);
  // the master, which this process holds, is drawn without being sent back.
  const renderViews = (glb: Buffer | null, views: number, size: number) =>
    deps.media.run('render.turntable', { glb: glb ?? master, options: { chromiumPath: deps.config.tools.chromium, views, size, timeoutMs: DELIVERY_RENDER_TIMEOUT_MS } });
  const result: DeliveryResult = await deps.media.run(
    'model.deliver',
    { master, budgets: resolveBudgets(deps.config.delivery, overrides), check: chromium.available },
    { renderViews },
  );
  const masterKey = storedMasterKey ?? privateProductKey(product, 'masters', '.glb');
  const webKey = browserAssetKey(product, '.glb');
  const [webData, mobileData, usdzData] = [asBuffer(result.web.data), asBuffer(result.mobile.data), asBuffer(result.usdz.data)];
  const mobileKey = mobileData.equals(webData) ? webKey : browserAssetKey(product, '.glb');
  const usdzKey = browserAssetKey(product, '.usdz');
  const glb = { contentType: 'model/gltf-binary' };
  await Promise.all([
    storedMasterKey ? Promise.resolve() : deps.storage.put(masterKey, master, glb),
    deps.storage.put(webKey, webData, glb),
    mobileKey === webKey ? Promise.resolve() : deps.storage.put(mobileKey, mobileData, glb),
    deps.storage.put(usdzKey, usdzData, { contentType: 'model/vnd.usdz+zip' }),
  ]);
  const checked = chromium.available ? (ssim: number) => ssim : (ssim: number) => (ssim === 1 ? 1 : null);
  const glbDelivery = (key: string, f: DeliveryResult['web']) => ({ key, bytes: f.bytes, triangles: f.triangles, maxTexturePx: f.maxTexturePx, ssim: checked(f.ssim) });
  return {
    masterKey,
    delivery: {
      web: glbDelivery(webKey, result.web),
      mobile: glbDelivery(mobileKey, result.mobile),
      usdz: { key: usdzKey, bytes: result.usdz.bytes, ssim: checked(result.usdz.ssim) },
    },
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message, delivery: w.delivery, bytes: w.bytes })),
  };
}

/** Every file a stored model version owns, for deleting it once nothing points at it. */
export function modelFileKeys(m: Pick<StoredModel, 'glbKey' | 'usdzKey' | 'masterKey' | 'delivery' | 'usdzVariantKeys'>): string[] {
  const keys = new Set<string>([m.glbKey]);
  if (m.usdzKey) keys.add(m.usdzKey);
  for (const key of Object.values(m.usdzVariantKeys ?? {})) keys.add(key);
  if (m.masterKey) keys.add(m.masterKey);
  if (m.delivery) for (const d of [m.delivery.web, m.delivery.mobile, m.delivery.usdz]) keys.add(d.key);
  return [...keys];
}

export async function deleteModelFiles(deps: Pick<Deps, 'storage'>, m: Parameters<typeof modelFileKeys>[0]): Promise<void> {
  await Promise.allSettled(modelFileKeys(m).map((k) => deps.storage.delete(k)));
}
