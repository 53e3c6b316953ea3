import type { ArCallToAction, FeatureContext } from './viewer-features.js';

/**
 * AR Quick Look reads its banner from the USDZ URL's fragment: a title, subtitle and price, and a button
 * (`callToAction`) whose tap Safari reports to the page as a message, which model-viewer turns into
 * `quick-look-button-tapped`.
 */
export function quickLookUrl(usdz: string | null, cta: ArCallToAction | null): string | null {
  if (!usdz || !cta) return usdz;
  const params: [string, string | undefined][] = [
    ['callToAction', cta.button_label],
    ['checkoutTitle', cta.title],
    ['checkoutSubtitle', cta.subtitle],
    ['price', cta.price],
  ];
  const fragment = params
    .filter((p): p is [string, string] => !!p[1])
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return `${usdz.split('#')[0]}#${fragment}`;
}

/**
 * settings.ar_placement and ar_scale become model-viewer's `ar-placement` and `ar-scale`; the call to action
 * is the Quick Look banner on iOS and, elsewhere, a button shown when the shopper comes back from AR.
 */
export function mountArOptions(ctx: FeatureContext): () => void {
  const { viewer, product } = ctx;
  viewer.setAttribute('ar-placement', product.viewer.ar_placement);
  viewer.setAttribute('ar-scale', product.viewer.ar_scale);
  const cta = product.viewer.ar_call_to_action;
  if (!cta) return () => undefined;
  const go = () => {
    ctx.send('ar_cta_tap');
    window.open(cta.url, '_blank', 'noopener');
  };
  const button = document.createElement('a');
  button.className = 'ar-cta';
  button.setAttribute('part', 'ar-cta');
  button.href = cta.url;
  button.target = '_blank';
  button.rel = 'noopener';
  button.textContent = cta.button_label;
  button.title = [cta.title, cta.price].filter(Boolean).join(' · ');
  button.hidden = true;
  button.addEventListener('click', (event) => {
    event.preventDefault();
    go();
  });
  ctx.frame.append(button);
  // Scene Viewer and WebXR hand the shopper back to the page: the button waits there.
  const onArEnd = (event: Event) => {
    if ((event as CustomEvent<{ mode?: string }>).detail?.mode !== 'quick-look') button.hidden = false;
  };
  ctx.host.addEventListener('service-model:ar-end', onArEnd);
  viewer.addEventListener('quick-look-button-tapped', go);
  return () => {
    ctx.host.removeEventListener('service-model:ar-end', onArEnd);
    viewer.removeEventListener('quick-look-button-tapped', go);
    button.remove();
  };
}
