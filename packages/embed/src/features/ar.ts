export type ArMode = 'webxr' | 'quick-look' | 'scene-viewer';

export interface ArHandlers {
  start(mode: ArMode): void;
  /** inferred: the viewer reports no end (Quick Look, Scene Viewer); the page becoming visible again stands in for it */
  end(mode: ArMode, durationMs: number, inferred: boolean): void;
}

/** Scene Viewer opens as another app: a tap followed by the page hiding this soon is taken as its start. */
const EXTERNAL_START_WINDOW_MS = 5_000;

/** Safari's AR Quick Look is announced by `<a rel="ar">` support; model-viewer uses the same test. */
export function quickLookSupported(): boolean {
  try {
    return document.createElement('a').relList.supports('ar');
  } catch {
    return false;
  }
}

/**
 * Turns model-viewer's signals into AR sessions with a start and a duration:
 * - WebXR: `ar-status` 'session-started', then 'not-presenting' (or 'failed') ends it.
 * - Quick Look (iOS): the AR button tap starts it; Quick Look reports no end, so the page becoming
 *   visible again ends it, flagged as inferred.
 * - Scene Viewer (Android intent): a tap, then the page hiding, starts it; visible again ends it.
 */
export class ArTracker {
  private session: { mode: ArMode; startedAt: number; sawHidden: boolean } | null = null;
  private tappedAt: number | null = null;
  private readonly quickLook = quickLookSupported();

  constructor(
    private readonly viewer: HTMLElement,
    private readonly button: HTMLElement,
    private readonly arModes: () => string,
    private readonly handlers: ArHandlers,
  ) {
    viewer.addEventListener('ar-status', this.onStatus);
    button.addEventListener('click', this.onTap);
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  dispose(): void {
    this.viewer.removeEventListener('ar-status', this.onStatus);
    this.button.removeEventListener('click', this.onTap);
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.session = null;
  }

  private begin(mode: ArMode, startedAt = performance.now()) {
    this.tappedAt = null;
    this.session = { mode, startedAt, sawHidden: document.visibilityState === 'hidden' };
    this.handlers.start(mode);
  }

  private finish(inferred: boolean) {
    const s = this.session;
    if (!s) return;
    this.session = null;
    this.handlers.end(s.mode, Math.max(0, Math.round(performance.now() - s.startedAt)), inferred);
  }

  private onStatus = (event: Event) => {
    const status = (event as CustomEvent<{ status?: string }>).detail?.status;
    if (status === 'session-started') {
      if (this.session?.mode !== 'webxr') this.begin('webxr');
    } else if ((status === 'not-presenting' || status === 'failed') && this.session?.mode === 'webxr') {
      this.finish(false);
    }
  };

  private onTap = () => {
    if (this.session) return;
    if (this.quickLook && /\bquick-look\b/.test(this.arModes())) this.begin('quick-look');
    else this.tappedAt = performance.now();
  };

  private onVisibility = () => {
    const hidden = document.visibilityState === 'hidden';
    if (hidden) {
      if (this.session) this.session.sawHidden = true;
      else if (this.tappedAt !== null && performance.now() - this.tappedAt < EXTERNAL_START_WINDOW_MS) {
        this.begin('scene-viewer', this.tappedAt);
        this.session!.sawHidden = true;
      }
      return;
    }
    const s = this.session;
    if (s && s.mode !== 'webxr' && s.sawHidden) this.finish(true);
  };
}
