import type { EmbedProduct } from './loading.js';
import { mountArOptions, quickLookUrl } from './ar-options.js';
import { mountDimensions } from './dimensions.js';
import { mountHotspots } from './hotspots.js';
import { Variants } from './variants.js';
import { FEATURE_STYLE } from './viewer-features.style.js';

/** The section 15 settings as GET /embed/products/{id} serves them (older servers omit them). */
export interface ArCallToAction {
  title: string;
  subtitle?: string;
  price?: string;
  button_label: string;
  url: string;
}
export interface Hotspot {
  id: string;
  position: number[];
  normal: number[];
  label: string;
  text?: string;
}
export interface FeatureSettings {
  default_variant: string | null;
  variant_picker: boolean;
  hotspots: Hotspot[];
  show_dimensions: boolean;
  units: 'metric' | 'imperial' | null;
  ar_placement: 'floor' | 'wall';
  ar_scale: 'auto' | 'fixed';
  ar_call_to_action: ArCallToAction | null;
}
export type FeatureProduct = Omit<EmbedProduct, 'viewer'> & { viewer: FeatureSettings; variants: { name: string }[]; usdz_variants: Record<string, string> };
export type FeatureEvent = 'variant_change' | 'hotspot_open' | 'ar_cta_tap';

export interface FeatureContext {
  host: HTMLElement;
  frame: HTMLElement;
  viewer: HTMLElement;
  product: FeatureProduct;
  send(type: FeatureEvent): void;
}

const DEFAULTS: FeatureSettings = {
  default_variant: null,
  variant_picker: false,
  hotspots: [],
  show_dimensions: false,
  units: null,
  ar_placement: 'floor',
  ar_scale: 'auto',
  ar_call_to_action: null,
};

export interface ViewerFeatures {
  /** the element's `variant` attribute changed */
  setVariant(name: string | null): void;
  dispose(): void;
}

/** Mounts variants, hotspots, dimensions and the AR options on a shown product; `ios-src` follows the variant. */
export function mountViewerFeatures(host: HTMLElement, frame: HTMLElement, viewer: HTMLElement, product: EmbedProduct, send: (type: FeatureEvent) => void): ViewerFeatures {
  const root = frame.getRootNode() as ShadowRoot;
  if (!root.querySelector('style.features')) {
    const style = document.createElement('style');
    style.className = 'features';
    style.textContent = FEATURE_STYLE;
    root.append(style);
  }
  const p = product as unknown as Partial<FeatureProduct>;
  const full: FeatureProduct = { ...product, viewer: { ...DEFAULTS, ...product.viewer }, variants: p.variants ?? [], usdz_variants: p.usdz_variants ?? {} };
  const ctx: FeatureContext = { host, frame, viewer, product: full, send };
  const iosSrc = (variant: string | null) => {
    const url = quickLookUrl((variant && full.usdz_variants[variant]) || full.usdz_url, full.viewer.ar_call_to_action);
    if (url) viewer.setAttribute('ios-src', url);
  };
  const variants = new Variants(ctx, iosSrc);
  const undo = [mountHotspots(ctx), mountDimensions(ctx), mountArOptions(ctx), () => variants.dispose()];
  variants.pick(host.getAttribute('variant'));
  iosSrc(variants.current);
  return {
    // A shop's own swatches set the attribute: that is the shopper's change too.
    setVariant: (name) => variants.pick(name, true),
    dispose: () => undo.forEach((fn) => fn()),
  };
}
