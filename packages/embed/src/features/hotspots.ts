import type { FeatureContext } from './viewer-features.js';

/** settings.hotspots: each a button named by its label, on the model's surface, that opens its text. */
export function mountHotspots(ctx: FeatureContext): () => void {
  const made: HTMLElement[] = [];
  for (const h of ctx.product.viewer.hotspots) {
    const spot = document.createElement('div');
    spot.className = 'hotspot';
    spot.slot = `hotspot-${h.id}`;
    spot.dataset.position = h.position.map((v) => `${v}m`).join(' ');
    spot.dataset.normal = h.normal.join(' ');
    spot.dataset.visibilityAttribute = 'visible';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = h.label;
    button.setAttribute('aria-expanded', 'false');
    spot.append(button);
    if (h.text) {
      const text = document.createElement('p');
      text.id = `hotspot-text-${h.id}`;
      text.textContent = h.text;
      text.hidden = true;
      button.setAttribute('aria-controls', text.id);
      spot.append(text);
      button.addEventListener('click', () => {
        const open = text.hidden;
        text.hidden = !open;
        button.setAttribute('aria-expanded', String(open));
        if (open) ctx.send('hotspot_open');
      });
    } else {
      button.addEventListener('click', () => ctx.send('hotspot_open'));
    }
    ctx.viewer.append(spot);
    made.push(spot);
  }
  return () => made.forEach((el) => el.remove());
}
