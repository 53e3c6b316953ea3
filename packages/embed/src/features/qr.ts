import { renderSVG } from 'uqr';

/**
 * On a desktop model-viewer hides its AR button (no AR there). This button takes its place and shows a QR
 * code of the page, so the shopper can open the same product on a phone and place it from there.
 */
export class DesktopAr {
  constructor(
    private readonly button: HTMLButtonElement,
    private readonly panel: HTMLElement,
    private readonly code: HTMLElement,
    private readonly url: () => string,
  ) {
    button.addEventListener('click', this.open);
    panel.querySelector('button')!.addEventListener('click', this.close);
  }

  /** Shown only when the viewer cannot start AR itself. */
  update(canActivateAr: boolean): void {
    this.button.hidden = canActivateAr;
    if (canActivateAr) this.close();
  }

  private open = () => {
    // Made on demand: most shoppers never ask, and the code must carry the page as it is now.
    this.code.innerHTML = renderSVG(this.url(), { border: 2 });
    this.panel.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
  };

  private close = () => {
    this.panel.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
  };
}
