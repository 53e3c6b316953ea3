import { Type } from '@sinclair/typebox';

/** DESIGN section 15: what a shop turns on in the viewer beyond lighting and camera. */
export const MAX_HOTSPOTS = 20;

const Vec3 = (description: string) => Type.Array(Type.Number({ minimum: -1000, maximum: 1000 }), { minItems: 3, maxItems: 3, description });

export const HotspotSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$', description: 'unique within the model' }),
    position: Vec3('[x, y, z] on the model, in the model’s metres'),
    normal: Vec3('the surface direction at the point, [x, y, z]'),
    label: Type.String({ minLength: 1, maxLength: 80, description: 'the button’s accessible name' }),
    text: Type.Optional(Type.String({ maxLength: 280, description: 'shown when the hotspot is opened' })),
  },
  { additionalProperties: false, title: 'Hotspot' },
);

export const ArCallToActionSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 60 }),
    subtitle: Type.Optional(Type.String({ maxLength: 60 })),
    price: Type.Optional(Type.String({ maxLength: 20, description: 'as the shop writes it, e.g. "$129"' })),
    button_label: Type.String({ minLength: 1, maxLength: 20 }),
    url: Type.String({ format: 'uri', maxLength: 2048, pattern: '^https://', description: 'https only; opened on a tap' }),
  },
  { additionalProperties: false, title: 'ArCallToAction' },
);

/** Spread into ViewerSettings; null removes a field (back to its default). */
export const ShopperViewerSettings = {
  default_variant: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], { description: 'a name from model.variants; the first one shown' })),
  variant_picker: Type.Optional(Type.Boolean({ description: 'show the accessible variant picker; default false' })),
  hotspots: Type.Optional(Type.Array(HotspotSchema, { maxItems: MAX_HOTSPOTS, description: `at most ${MAX_HOTSPOTS}` })),
  show_dimensions: Type.Optional(Type.Boolean({ description: 'draw width, height and depth on the model; default false' })),
  units: Type.Optional(Type.Union([Type.Literal('metric'), Type.Literal('imperial'), Type.Null()], { description: 'default from the browser’s locale (imperial for en-US)' })),
  ar_placement: Type.Optional(Type.Union([Type.Literal('floor'), Type.Literal('wall')], { description: 'default floor' })),
  ar_scale: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('fixed')], { description: 'fixed: the shopper cannot resize the product in AR; default auto' })),
  ar_call_to_action: Type.Optional(Type.Union([ArCallToActionSchema, Type.Null()], { description: 'AR Quick Look’s banner on iOS and a button on Android' })),
};

export interface HotspotInput {
  id: string;
  position: number[];
  normal: number[];
  label: string;
  text?: string;
}

/** Checks that need the model: ids unique, the default variant one the model has. */
export function viewerSettingsProblems(settings: { hotspots?: HotspotInput[]; default_variant?: string | null }, variants: readonly string[]) {
  const problems: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const [i, h] of (settings.hotspots ?? []).entries()) {
    if (seen.has(h.id)) problems.push({ path: `body.settings.hotspots[${i}].id`, message: `repeats the id "${h.id}"` });
    seen.add(h.id);
  }
  const wanted = settings.default_variant;
  if (wanted != null && !variants.includes(wanted)) {
    problems.push({ path: 'body.settings.default_variant', message: variants.length ? `must be one of: ${variants.map((v) => JSON.stringify(v)).join(', ')}` : 'the model has no variants' });
  }
  return problems;
}

/** A rescale moves hotspots with the model: positions scale about the origin, as the model's root does. */
export function scaleHotspots<T extends { position: number[] }>(hotspots: T[] | undefined, factor: number): T[] | undefined {
  return hotspots?.map((h) => ({ ...h, position: h.position.map((v) => Math.round(v * factor * 1e6) / 1e6) }));
}

/** A patch merges into the saved settings; null removes a field, a list replaces the saved list whole. */
export function mergeViewerSettings<T extends object>(current: T, patch: object): T {
  const out = { ...current } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out as T;
}
