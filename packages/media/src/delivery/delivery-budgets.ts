/** The three files a ready model is delivered as (DESIGN section 14). */
export type DeliveryName = 'web' | 'mobile' | 'usdz';
export const DELIVERY_NAMES: readonly DeliveryName[] = ['web', 'mobile', 'usdz'];

/** One delivery's limits; `maxTriangles` null means no triangle limit (the USDZ has none by default). */
export interface DeliveryBudget {
  maxBytes: number;
  maxTriangles: number | null;
  maxTexturePx: number;
}

export type DeliveryBudgets = Record<DeliveryName, DeliveryBudget>;

/** Per-model overrides as the API takes them: any field of any delivery. */
export type DeliveryBudgetOverrides = Partial<Record<DeliveryName, Partial<DeliveryBudget>>>;

const MB = 1_000_000;

export const DEFAULT_DELIVERY_BUDGETS: DeliveryBudgets = Object.freeze({
  web: Object.freeze({ maxBytes: 5 * MB, maxTriangles: 150_000, maxTexturePx: 2048 }),
  mobile: Object.freeze({ maxBytes: 2.5 * MB, maxTriangles: 50_000, maxTexturePx: 1024 }),
  usdz: Object.freeze({ maxBytes: 8 * MB, maxTriangles: null, maxTexturePx: 2048 }),
}) as DeliveryBudgets;

/** The installation's budgets with a model's overrides laid over them, field by field. */
export function resolveBudgets(base: DeliveryBudgets, overrides: DeliveryBudgetOverrides | null | undefined): DeliveryBudgets {
  const out = {} as DeliveryBudgets;
  for (const name of DELIVERY_NAMES) {
    const o = overrides?.[name] ?? {};
    out[name] = {
      maxBytes: o.maxBytes ?? base[name].maxBytes,
      maxTriangles: o.maxTriangles === undefined ? base[name].maxTriangles : o.maxTriangles,
      maxTexturePx: o.maxTexturePx ?? base[name].maxTexturePx,
    };
  }
  return out;
}

export interface MeasuredFile {
  bytes: number;
  triangles: number;
  maxTexturePx: number;
}

export function withinBudget(file: MeasuredFile, budget: DeliveryBudget): boolean {
  return (
    file.bytes <= budget.maxBytes &&
    (budget.maxTriangles === null || file.triangles <= budget.maxTriangles) &&
    file.maxTexturePx <= budget.maxTexturePx
  );
}
