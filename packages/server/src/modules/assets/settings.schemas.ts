import { Type } from '@sinclair/typebox';
import { ShopperViewerSettings } from './viewer-features.schemas.js';
import { MAX_FILL, MAX_SIDE, MIN_FILL, MIN_SIDE, PRESET_NAMES } from '@plinth/media';

/** The channels of DESIGN section 16. */
export const PresetSchema = Type.Union(
  PRESET_NAMES.map((s) => Type.Literal(s)),
  { description: 'a channel preset: its canvas, fill, background and format, and the compliance checks it adds' },
);
const Side = Type.Integer({ minimum: MIN_SIDE, maximum: MAX_SIDE });

/** Per-image finishing settings (DESIGN section 3); absent fields take the defaults at export time. */
export const ImageSettingsSchema = Type.Object(
  {
    background: Type.Optional(Type.String({ pattern: '^(#[0-9a-fA-F]{6}|transparent)$', description: '"#rrggbb" or "transparent"; default "#ffffff"' })),
    shadow: Type.Optional(Type.Union(['none', 'soft', 'hard', 'contact'].map((s) => Type.Literal(s)), { description: 'default soft' })),
    padding: Type.Optional(
      Type.Union([Type.Number({ minimum: 0, maximum: 0.45, description: 'fraction of the canvas kept empty on each side; default 0.08' }), Type.Null()]),
    ),
    format: Type.Optional(Type.Union(['jpeg', 'png', 'webp'].map((s) => Type.Literal(s)), { description: "default png when transparent, else the preset's, else jpeg" })),
    preset: Type.Optional(Type.Union([PresetSchema, Type.Null()])),
    size: Type.Optional(
      Type.Union([
        Type.Object({ width: Side, height: Side }, { additionalProperties: false, description: "the canvas in px; default the preset's, else 2048 × 2048" }),
        Type.Null(),
      ]),
    ),
    fill: Type.Optional(
      Type.Union([
        Type.Number({ minimum: MIN_FILL, maximum: MAX_FILL, description: "the product's longer side over the canvas side; replaces padding when given" }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false, title: 'ImageSettings' },
);

export const ViewerSettingsSchema = Type.Object(
  {
    exposure: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
    shadow_intensity: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
    camera_orbit: Type.Optional(Type.String({ maxLength: 100, pattern: '^[-0-9.a-z%\\s]+$', description: 'model-viewer camera-orbit, e.g. "30deg 75deg 2m"' })),
    environment: Type.Optional(Type.String({ maxLength: 100, pattern: '^[a-z0-9-]+$', description: 'named lighting environment, e.g. "neutral"' })),
    auto_rotate: Type.Optional(Type.Boolean({ description: 'turn the model slowly until the shopper touches it' })),
    ...ShopperViewerSettings,
  },
  { additionalProperties: false, title: 'ViewerSettings' },
);

export type ImageSettingsInput = {
  background?: string;
  shadow?: string;
  padding?: number | null;
  format?: string;
  preset?: string | null;
  size?: { width: number; height: number } | null;
  fill?: number | null;
};

/** Settings that cannot be checked field by field: a JPEG has no transparency. */
export function settingsProblem(merged: ImageSettingsInput): string | null {
  if (merged.background === 'transparent' && merged.format === 'jpeg') return 'a jpeg cannot have a transparent background; use png or webp';
  return null;
}

/** null removes a field (back to its default); undefined leaves it. */
export function mergeSettings(current: Record<string, unknown>, patch: ImageSettingsInput): ImageSettingsInput {
  const out: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  if (typeof out.background === 'string' && out.background !== 'transparent') out.background = (out.background as string).toLowerCase();
  return out as ImageSettingsInput;
}
