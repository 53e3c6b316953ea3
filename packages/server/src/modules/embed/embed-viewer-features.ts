import { Type } from '@sinclair/typebox';
import { ArCallToActionSchema, HotspotSchema } from '../assets/index.js';
import type { ViewerSettings } from '../products/index.js';

/** Section 15's settings as the element receives them, defaults filled in (units stay null: the browser's locale decides). */
export const EmbedViewerFeatureFields = {
  default_variant: Type.Union([Type.String(), Type.Null()]),
  variant_picker: Type.Boolean(),
  hotspots: Type.Array(HotspotSchema),
  show_dimensions: Type.Boolean(),
  units: Type.Union([Type.Literal('metric'), Type.Literal('imperial'), Type.Null()]),
  ar_placement: Type.Union([Type.Literal('floor'), Type.Literal('wall')]),
  ar_scale: Type.Union([Type.Literal('auto'), Type.Literal('fixed')]),
  ar_call_to_action: Type.Union([ArCallToActionSchema, Type.Null()]),
};

export function embedViewerFeatures(s: ViewerSettings, variants: readonly string[]) {
  // A default that no longer names a variant (the model was replaced) falls back to the file's own look.
  const defaultVariant = s.default_variant && variants.includes(s.default_variant) ? s.default_variant : null;
  return {
    default_variant: defaultVariant,
    variant_picker: (s.variant_picker ?? false) && variants.length > 0,
    hotspots: s.hotspots ?? [],
    show_dimensions: s.show_dimensions ?? false,
    units: s.units ?? null,
    ar_placement: s.ar_placement ?? 'floor',
    ar_scale: s.ar_scale ?? 'auto',
    ar_call_to_action: s.ar_call_to_action ?? null,
  };
}
