import type { FeatureContext } from './viewer-features.js';

/**
 * KHR_materials_variants: the `variant` attribute (else settings.default_variant) picks the look, and with
 * settings.variant_picker an accessible picker (a radiogroup labelled "Variant") lets the shopper switch.
 */
export class Variants {
  private picker: HTMLElement | null = null;
  current: string | null = null;

  constructor(private readonly ctx: FeatureContext, private readonly onChange: (name: string | null) => void) {
    const names = ctx.product.variants.map((v) => v.name);
    if (ctx.product.viewer.variant_picker && names.length) {
      const group = (this.picker = document.createElement('div'));
      group.className = 'variants';
      group.setAttribute('part', 'variants');
      group.setAttribute('role', 'radiogroup');
      group.setAttribute('aria-label', 'Variant');
      const field = `v${Math.random().toString(36).slice(2)}`;
      for (const name of names) {
        const label = document.createElement('label');
        const input = document.createElement('input');
        input.type = 'radio';
        input.name = field;
        input.value = name;
        input.addEventListener('change', () => input.checked && this.pick(name, true));
        label.append(input, name);
        group.append(label);
      }
      ctx.frame.append(group);
    }
  }

  /** A name the model does not have falls back to the default variant, then to the file's own look. */
  /** byShopper: the picker or the `variant` attribute after the model is shown, which sends `variant_change`. */
  pick(wanted: string | null, byShopper = false): void {
    const names = this.ctx.product.variants.map((v) => v.name);
    const name = [wanted, this.ctx.product.viewer.default_variant].find((n) => n && names.includes(n)) ?? null;
    if (name === this.current && !byShopper) return;
    const changed = name !== this.current;
    this.current = name;
    const viewer = this.ctx.viewer;
    if (name) viewer.setAttribute('variant-name', name);
    else viewer.removeAttribute('variant-name');
    for (const input of this.picker?.querySelectorAll('input') ?? []) input.checked = input.value === name;
    this.onChange(name);
    if (byShopper && changed) this.ctx.send('variant_change');
  }

  dispose(): void {
    this.picker?.remove();
  }
}
