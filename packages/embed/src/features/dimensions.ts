import type { FeatureContext } from './viewer-features.js';

type Units = 'metric' | 'imperial';
type Vec = { x: number; y: number; z: number };
interface Measurable {
  getBoundingBoxCenter(): Vec;
  getDimensions(): Vec;
  queryHotspot(name: string): { canvasPosition: Vec; facingCamera: boolean } | null;
}

/** The browser's locale decides when the shop did not: imperial for en-US (DESIGN section 15). */
export function defaultUnits(language = navigator.language): Units {
  return /^en-us$/i.test(language.replace('_', '-')) ? 'imperial' : 'metric';
}

export function formatLength(metres: number, units: Units): string {
  if (units === 'imperial') {
    const inches = metres / 0.0254;
    const whole = Math.round(inches);
    return inches < 36 ? `${inches.toFixed(1)} in` : `${Math.floor(whole / 12)} ft ${whole % 12} in`;
  }
  return metres < 1 ? `${(metres * 100).toFixed(1)} cm` : `${metres.toFixed(2)} m`;
}

const AXES = ['width', 'height', 'depth'] as const;

/**
 * settings.show_dimensions: width, height and depth drawn along the model's box edges, each a line between two
 * corner points and a label in the chosen units. The numbers are the size Plinth measured (metres).
 */
export function mountDimensions(ctx: FeatureContext): () => void {
  const real = ctx.product.dimensions;
  if (!ctx.product.viewer.show_dimensions || !real) return () => undefined;
  const units = ctx.product.viewer.units ?? defaultUnits();
  const viewer = ctx.viewer as HTMLElement & Measurable;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'dims');
  svg.setAttribute('aria-hidden', 'true');
  const lines = AXES.map(() => svg.appendChild(document.createElementNS(svg.namespaceURI, 'line')));
  const made: Element[] = [svg];
  ctx.frame.append(svg);

  const place = () => {
    const c = viewer.getBoundingBoxCenter();
    const d = viewer.getDimensions();
    const [x0, x1, y0, y1, z1] = [c.x - d.x / 2, c.x + d.x / 2, c.y - d.y / 2, c.y + d.y / 2, c.z + d.z / 2];
    const z0 = c.z - d.z / 2;
    // Along the front bottom edge, up the front right edge, back along the bottom right edge.
    const ends = [
      [[x0, y0, z1], [x1, y0, z1]],
      [[x1, y0, z1], [x1, y1, z1]],
      [[x1, y0, z1], [x1, y0, z0]],
    ];
    for (const el of made.slice(1)) el.remove();
    made.length = 1;
    AXES.forEach((axis, i) => {
      const [a, b] = ends[i];
      for (const [j, p] of [a, b, a.map((v, k) => (v + b[k]) / 2)].entries()) {
        const spot = document.createElement('div');
        spot.slot = `hotspot-dim-${axis}-${j}`;
        spot.dataset.position = p.map((v) => `${v}m`).join(' ');
        if (j === 2) {
          spot.className = 'dim-label';
          spot.textContent = formatLength(real[axis], units);
          spot.setAttribute('aria-label', `${axis[0].toUpperCase()}${axis.slice(1)} ${formatLength(real[axis], units)}`);
        } else spot.className = 'dim-end';
        viewer.append(spot);
        made.push(spot);
      }
    });
    requestAnimationFrame(draw);
  };
  const draw = () => {
    const frame = ctx.frame.getBoundingClientRect();
    const box = viewer.getBoundingClientRect();
    AXES.forEach((axis, i) => {
      const a = viewer.queryHotspot(`hotspot-dim-${axis}-0`);
      const b = viewer.queryHotspot(`hotspot-dim-${axis}-1`);
      if (!a || !b) return;
      const line = lines[i];
      line.setAttribute('x1', String(a.canvasPosition.x + box.left - frame.left));
      line.setAttribute('y1', String(a.canvasPosition.y + box.top - frame.top));
      line.setAttribute('x2', String(b.canvasPosition.x + box.left - frame.left));
      line.setAttribute('y2', String(b.canvasPosition.y + box.top - frame.top));
    });
  };
  viewer.addEventListener('load', place);
  viewer.addEventListener('camera-change', draw);
  if ((viewer as { loaded?: boolean }).loaded) place();
  return () => {
    viewer.removeEventListener('load', place);
    viewer.removeEventListener('camera-change', draw);
    made.forEach((el) => el.remove());
  };
}
