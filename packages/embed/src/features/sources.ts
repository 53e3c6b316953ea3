import type { EmbedProduct } from './loading.js';

interface DeviceHints {
  connection?: { saveData?: boolean; effectiveType?: string };
  deviceMemory?: number;
}

/**
 * The lighter `mobile` delivery on a narrow screen (≤ 768 CSS px), with Save-Data on, on a 2g/3g
 * connection or with ≤ 4 GB of memory; else `web`. Browsers without these hints are judged by width alone.
 */
export function wantsMobile(win: Pick<Window, 'matchMedia' | 'navigator' | 'screen'> = window): boolean {
  const nav = win.navigator as Navigator & DeviceHints;
  const type = nav.connection?.effectiveType ?? '';
  return (
    // The device's screen, not only the layout: a page without a viewport meta tag lays out 980 px wide on a phone.
    win.screen.width <= 768 ||
    win.matchMedia('(max-width: 768px)').matches ||
    nav.connection?.saveData === true ||
    /^(slow-2g|2g|3g)$/.test(type) ||
    (typeof nav.deviceMemory === 'number' && nav.deviceMemory <= 4)
  );
}

export const modelSource = (p: EmbedProduct): string => (p.sources ? (wantsMobile() ? p.sources.mobile : p.sources.web) : p.model_url);
