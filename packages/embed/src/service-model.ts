import { ArTracker, type ArMode } from './features/ar.js';
import { beaconQueue, viewerId, watchView, type BeaconExtra, type BeaconQueue, type ConversionName } from './features/beacons.js';
import { armFor, type Arm } from './features/experiment.js';
import { loadProduct, resolveApiBase, type EmbedProduct, type FailureReason } from './features/loading.js';
import { DesktopAr } from './features/qr.js';
import { modelSource } from './features/sources.js';
import { mountViewerFeatures, type ViewerFeatures } from './features/viewer-features.js';
import { SHADOW_HTML } from './shadow.js';

export type ServiceModelState = 'empty' | 'loading' | 'ready' | 'error';
export type ServiceModelErrorReason = FailureReason | 'model';

export interface ServiceModelEventMap {
  /** the model is on screen */
  'service-model:load': CustomEvent<{ productId: string; product: EmbedProduct; experiment: { id: string; arm: Arm } | null }>;
  'service-model:error': CustomEvent<{ productId: string | null; reason: ServiceModelErrorReason; status: number | null; message: string }>;
  'service-model:ar-start': CustomEvent<{ productId: string; mode: ArMode }>;
  'service-model:ar-end': CustomEvent<{ productId: string; mode: ArMode; durationMs: number; inferred: boolean }>;
}

/** Shoppers see a short, calm sentence; the developer's explanation goes to the console. */
const MESSAGES: Record<ServiceModelErrorReason, string> = {
  origin: 'This product can’t be shown on this site (its address is not in the project’s allowed_domains).',
  not_found: 'This product isn’t available.',
  key: 'This key is not valid. Use the project’s publishable key (pk_…).',
  unauthorized: 'This product can’t be shown right now.',
  rate_limited: 'Busy right now. Please try again.',
  network: 'Couldn’t load the product.',
  server: 'Couldn’t load the product.',
  config: 'This product can’t be shown.',
  model: 'The 3D model couldn’t be loaded.',
};
const RETRYABLE = new Set<ServiceModelErrorReason>(['network', 'server', 'rate_limited', 'model']);
/** Where the bundle was loaded from: the default api-base. */
const SCRIPT_URL = import.meta.url;

interface Shown {
  productId: string;
  product: EmbedProduct;
  beacons: BeaconQueue;
  /** The delivery chosen for this device when it was shown. */
  src?: string;
  /** experiment_id and arm, carried by every event while an experiment runs */
  tag: BeaconExtra;
  arm: Arm | null;
  interacted?: boolean;
}

const CONVERSIONS: readonly string[] = ['add_to_cart', 'purchase', 'lead'];

interface Ui {
  frame: HTMLElement;
  viewer: HTMLElement & { src?: string | null };
  poster: HTMLImageElement;
  status: HTMLElement;
  spinner: HTMLElement;
  message: HTMLElement;
  retry: HTMLButtonElement;
  arButton: HTMLButtonElement;
  progress: HTMLElement;
  desktopAr: DesktopAr;
}

export interface ServiceModelElement {
  addEventListener<K extends keyof ServiceModelEventMap>(
    type: K,
    listener: (this: ServiceModelElement, event: ServiceModelEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/**
 * `<service-model product-id publishable-key api-base>`: a published product in 3D and AR.
 * Every entry point is wrapped so that nothing this element does can throw into the host page.
 */
export class ServiceModelElement extends HTMLElement {
  static readonly observedAttributes = ['product-id', 'publishable-key', 'api-base', 'variant'];

  private ui: Ui | null = null;
  private current: Shown | null = null;
  private currentState: ServiceModelState = 'empty';
  private generation = 0;
  private pending = false;
  private abort: AbortController | null = null;
  private stopView: (() => void) | null = null;
  private ar: ArTracker | null = null;
  private features: ViewerFeatures | null = null;

  get productId(): string | null {
    return this.getAttribute('product-id');
  }
  set productId(value: string | null) {
    this.reflect('product-id', value);
  }
  get publishableKey(): string | null {
    return this.getAttribute('publishable-key');
  }
  set publishableKey(value: string | null) {
    this.reflect('publishable-key', value);
  }
  get apiBase(): string | null {
    return this.getAttribute('api-base');
  }
  set apiBase(value: string | null) {
    this.reflect('api-base', value);
  }
  /** Also reflected as the `state` attribute, so a page can style or hide it: `service-model[state=error]`. */
  get state(): ServiceModelState {
    return this.currentState;
  }
  /** The public projection once loaded. */
  get product(): EmbedProduct | null {
    return this.current?.product ?? null;
  }

  /** This browser's anonymous id (kept in the shop's localStorage): send it with a conversion from the shop's server. */
  get viewerId(): string {
    return viewerId();
  }
  /** The experiment arm this viewer sees, or null when no experiment runs on the product. */
  get arm(): Arm | null {
    return this.current?.arm ?? null;
  }

  /**
   * Records a conversion of this product, such as `track('add_to_cart', {value: 49, currency: 'EUR'})`, sent at once
   * with the viewer id and experiment arm. An invalid call is explained in the console and sends nothing, since the
   * API would refuse the whole batch it travels in.
   */
  track(name: ConversionName, options: { value?: number; currency?: string } = {}): void {
    this.safely(() => {
      const { value, currency } = options ?? {};
      const productId = this.current?.productId ?? this.productId?.trim();
      const key = this.publishableKey?.trim();
      const apiBase = resolveApiBase(this.apiBase, SCRIPT_URL);
      let problem = !CONVERSIONS.includes(name) ? `"${name}" is not add_to_cart, purchase or lead` : '';
      if (value !== undefined && !(Number.isFinite(value) && value >= 0)) problem = 'value must be a number ≥ 0';
      if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) problem = 'currency must be an ISO 4217 code such as EUR';
      if (!productId || !key || !apiBase) problem ||= 'product-id, publishable-key and api-base are needed';
      if (problem) return console.warn(`[service-model] track(): ${problem}; nothing was sent.`);
      const queue = this.current?.beacons ?? beaconQueue(apiBase!, key!);
      queue.add('conversion', productId!, { name, ...(value !== undefined && { value }), ...(currency && { currency }), ...this.current?.tag });
      // A purchase button usually leaves the page: send now rather than with the next batch.
      queue.flush();
    });
  }

  /** Fetches the product again (the retry button does the same). */
  reload(): void {
    this.safely(() => this.schedule());
  }

  connectedCallback(): void {
    this.safely(() => {
      const ui = (this.ui ??= this.render());
      this.ar ??= new ArTracker(ui.viewer, ui.arButton, () => ui.viewer.getAttribute('ar-modes') ?? '', {
        start: (mode) => this.onArStart(mode),
        end: (mode, durationMs, inferred) => this.onArEnd(mode, durationMs, inferred),
      });
      this.schedule();
    });
  }

  disconnectedCallback(): void {
    this.safely(() => {
      this.generation++;
      this.abort?.abort();
      this.stopView?.();
      this.stopView = null;
      this.ar?.dispose();
      this.ar = null;
      this.current?.beacons.flush();
    });
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null): void {
    // A variant switches the look of the model on screen; nothing is fetched again.
    if (name === 'variant') return this.safely(() => this.features?.setVariant(value));
    if (previous !== value && this.isConnected) this.safely(() => this.schedule());
  }

  private reflect(name: string, value: string | null) {
    if (value == null) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }

  private safely(fn: () => void) {
    try {
      fn();
    } catch (err) {
      try {
        this.fail(this.productId, 'config', null, `Unexpected error: ${(err as Error)?.message ?? err}`);
      } catch {
        // Nothing left to do without risking the host page.
      }
    }
  }

  /** Attribute changes arrive one by one; they are gathered into a single load. */
  private schedule() {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      if (this.isConnected) this.load().catch((err) => this.safely(() => this.fail(this.productId, 'config', null, String(err))));
    });
  }

  private render(): Ui {
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.innerHTML = SHADOW_HTML;
    const $ = <T extends HTMLElement>(selector: string) => root.querySelector(selector) as T;
    const ui: Ui = {
      progress: $('.progress'),
      desktopAr: new DesktopAr($('.qr-button'), $('.qr'), $('.qr .code'), () => location.href),
      frame: $('.frame'),
      viewer: $('model-viewer'),
      poster: $('.poster'),
      status: $('.status'),
      spinner: $('.spinner'),
      message: $('.message'),
      retry: $('.retry'),
      arButton: $('.ar-button'),
    };
    ui.retry.addEventListener('click', () => this.reload());
    ui.viewer.addEventListener('load', () => this.safely(() => this.onModelLoad()));
    ui.viewer.addEventListener('error', (event) => this.safely(() => this.onModelError(event)));
    ui.viewer.addEventListener('progress', (event) => this.safely(() => this.onProgress(event)));
    ui.viewer.addEventListener('camera-change', (event) => this.safely(() => this.onCameraChange(event)));
    return ui;
  }

  private setState(state: ServiceModelState, message = '', retry = false) {
    const ui = this.ui!;
    this.currentState = state;
    this.setAttribute('state', state);
    ui.frame.classList.toggle('has-viewer', state === 'ready' || (state === 'loading' && !!this.current));
    ui.status.hidden = state === 'ready' || (state === 'loading' && !!this.current);
    ui.spinner.hidden = state !== 'loading' || !!this.current;
    // The poster is on screen while the GLB downloads; a bar under it says how far along it is.
    ui.progress.hidden = !(state === 'loading' && this.current);
    if (state !== 'ready') ui.desktopAr.update(true);
    ui.message.textContent = message;
    ui.retry.hidden = !retry;
  }

  private async load() {
    const generation = ++this.generation;
    this.abort?.abort();
    this.stopView?.();
    this.stopView = null;
    this.features?.dispose();
    this.features = null;
    this.current = null;
    const productId = this.productId?.trim();
    const key = this.publishableKey?.trim();
    if (!productId || !key) return this.setState('empty');
    const apiBase = resolveApiBase(this.apiBase, SCRIPT_URL);
    if (!apiBase) return this.fail(productId, 'config', null, `api-base "${this.apiBase}" is not an http(s) URL.`);

    // After a failed model load, the same src must count as new or model-viewer would not try again.
    if (this.currentState === 'error') this.ui!.viewer.removeAttribute('src');
    this.setState('loading');
    const abort = (this.abort = new AbortController());
    const result = await loadProduct(apiBase, productId, key, abort.signal);
    if (generation !== this.generation) return;
    if (!result.ok) return this.fail(productId, result.reason, result.status, result.message);
    const experiment = result.product.experiment;
    const arm = experiment ? armFor(viewerId(), experiment) : null;
    const tag: BeaconExtra = experiment ? { experiment_id: experiment.id, arm: arm! } : {};
    this.show({ productId, product: result.product, beacons: beaconQueue(apiBase, key), tag, arm });
  }

  private show(shown: Shown) {
    const { product } = shown;
    const ui = this.ui!;
    const viewer = ui.viewer;
    // A view counts what the shopper saw, poster included: it is watched from the moment something is shown.
    const watch = () => (this.stopView = watchView(this, () => shown.beacons.add('view', shown.productId, shown.tag)));
    if (shown.arm === 'poster') {
      // The experiment's control: the product image alone. model-viewer leaves the page, with its canvas and AR button.
      this.current = shown;
      viewer.removeAttribute('src');
      viewer.remove();
      ui.poster.src = product.poster_url ?? '';
      ui.poster.alt = product.title ?? 'The product';
      ui.poster.hidden = false;
      this.setState('ready');
      ui.desktopAr.update(true);
      watch();
      return this.emit('service-model:load', { productId: shown.productId, product, experiment: { id: shown.tag.experiment_id!, arm: 'poster' } });
    }
    ui.poster.hidden = true;
    ui.poster.removeAttribute('src');
    if (!viewer.isConnected) ui.frame.prepend(viewer);
    const settings = product.viewer;
    const set = (name: string, value: string | number | null | undefined) =>
      value === null || value === undefined || value === '' ? viewer.removeAttribute(name) : viewer.setAttribute(name, String(value));
    this.current = shown;
    set('alt', product.title ?? 'A 3D model of the product');
    set('poster', product.poster_url);
    // The server's USDZ; without one, model-viewer builds a Quick Look file from the GLB itself.
    set('ios-src', product.usdz_url);
    set('exposure', settings.exposure);
    set('shadow-intensity', settings.shadow_intensity);
    set('camera-orbit', settings.camera_orbit);
    set('environment-image', settings.environment);
    viewer.toggleAttribute('auto-rotate', settings.auto_rotate);
    const src = (shown.src = modelSource(product));
    const unchanged = viewer.src === src && (viewer as { loaded?: boolean }).loaded;
    set('src', src);
    // The viewer's own events (variant_change, hotspot_open, ar_cta_tap) go through the same queue, tagged like the rest.
    this.features = mountViewerFeatures(this, this.ui!.frame, viewer, product, (type) => shown.beacons.add(type, shown.productId, shown.tag));
    this.setState('loading');
    // The same model already on screen sends no new `load`.
    if (unchanged) this.onModelLoad();
    watch();
  }

  /** `interaction`: the first rotate or zoom by the shopper after the product is shown, once. */
  private onCameraChange(event: Event) {
    const shown = this.current;
    if (!shown || shown.interacted || (event as CustomEvent<{ source?: string }>).detail?.source !== 'user-interaction') return;
    shown.interacted = true;
    shown.beacons.add('interaction', shown.productId, shown.tag);
  }

  private onModelLoad() {
    const shown = this.current;
    if (!shown || this.ui!.viewer.src !== shown.src) return;
    this.setState('ready');
    this.ui!.desktopAr.update(!!(this.ui!.viewer as { canActivateAR?: boolean }).canActivateAR);
    this.emit('service-model:load', { productId: shown.productId, product: shown.product, experiment: shown.arm && { id: shown.tag.experiment_id!, arm: shown.arm } });
  }

  private onProgress(event: Event) {
    const total = (event as CustomEvent<{ totalProgress?: number }>).detail?.totalProgress ?? 0;
    const percent = String(Math.round(Math.min(1, Math.max(0, total)) * 100));
    this.ui!.progress.setAttribute('aria-valuenow', percent);
    (this.ui!.progress.firstElementChild as HTMLElement).style.width = `${percent}%`;
  }

  private onModelError(event: Event) {
    const detail = (event as CustomEvent<{ type?: string; sourceError?: unknown }>).detail;
    // model-viewer also reports WebXR trouble as `error`; only a failed model load is fatal here.
    if (!this.current || (detail?.type && detail.type !== 'loadfailure')) return;
    const url = this.current.src ?? this.current.product.model_url;
    // The browser hides a CORS refusal behind a generic error, and it is the usual cause here.
    this.fail(this.current.productId, 'model', null, `The model at ${url} could not be loaded (${String(detail?.sourceError ?? 'unknown error')}). Check that it is served with CORS headers for this page's origin.`);
  }

  private onArStart(mode: ArMode) {
    const shown = this.current;
    if (!shown) return;
    shown.beacons.add('ar_enter', shown.productId, shown.tag);
    this.emit('service-model:ar-start', { productId: shown.productId, mode });
  }

  /** The beacon carries no flag for an inferred end (its body admits no extra field); the DOM event does. */
  private onArEnd(mode: ArMode, durationMs: number, inferred: boolean) {
    const shown = this.current;
    if (!shown) return;
    shown.beacons.add('ar_session_ended', shown.productId, { duration_ms: durationMs, ...shown.tag });
    this.emit('service-model:ar-end', { productId: shown.productId, mode, durationMs, inferred });
  }

  private fail(productId: string | null, reason: ServiceModelErrorReason, status: number | null, message: string) {
    this.abort?.abort();
    this.stopView?.();
    this.stopView = null;
    this.features?.dispose();
    this.features = null;
    this.current = null;
    if (this.ui) this.setState('error', MESSAGES[reason], RETRYABLE.has(reason));
    console.warn(`[service-model] ${productId ?? '(no product-id)'}: ${message}`);
    this.emit('service-model:error', { productId, reason, status, message });
  }

  private emit<K extends keyof ServiceModelEventMap>(type: K, detail: ServiceModelEventMap[K]['detail']) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'service-model': ServiceModelElement;
  }
}

/** Loading the script twice (say /embed.js and a versioned URL) must not throw on the second define. */
export function defineServiceModel(): void {
  if (!customElements.get('service-model')) customElements.define('service-model', ServiceModelElement);
}
