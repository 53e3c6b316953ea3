export type BeaconType = 'view' | 'ar_enter' | 'ar_session_ended' | 'interaction' | 'variant_change' | 'hotspot_open' | 'ar_cta_tap' | 'conversion';
export type ConversionName = 'add_to_cart' | 'purchase' | 'lead';

/** What an event may add to its type and product; POST /v1/beacon rejects unknown fields, so nothing else is sent. */
export interface BeaconExtra {
  duration_ms?: number;
  name?: ConversionName;
  value?: number;
  currency?: string;
  experiment_id?: string;
  arm?: '3d' | 'poster';
}

export interface BeaconEvent extends BeaconExtra {
  type: BeaconType;
  product_id: string;
  occurred_at: string;
  viewer_id: string;
}

/** Small batches: a page with a few elements sends one request, and a keepalive body stays far below 64 kB. */
const BATCH_DELAY_MS = 800;
const MAX_BATCH = 20;
const RETRY_DELAY_MS = 3_000;
const VIEWER_KEY = 'plinth:viewer_id';

let memoryViewerId: string | null = null;

function randomId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * An anonymous, random id for this browser, kept in the shop's own localStorage (the page's origin): never a
 * cookie, and never anything of Plinth's origin, so it follows the shopper only across this shop's pages and
 * an experiment shows them the same arm on every visit. Storage can be blocked (sandboxed frames, privacy
 * modes), and then the id lives as long as the page does.
 */
export function viewerId(): string {
  try {
    let id = localStorage.getItem(VIEWER_KEY);
    if (!id) {
      id = `v_${randomId()}`;
      localStorage.setItem(VIEWER_KEY, id);
    }
    return id;
  } catch {
    return (memoryViewerId ??= `v_${randomId()}`);
  }
}

/**
 * One queue per API and key, shared by every element on the page. Sending never blocks rendering
 * and never throws: a beacon that fails twice is dropped, since analytics must not cost the shopper.
 */
class BeaconQueue {
  private pending: BeaconEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly endpoint: string,
    private readonly key: string,
  ) {}

  add(type: BeaconType, productId: string, extra: BeaconExtra = {}): void {
    this.pending.push({ type, product_id: productId, occurred_at: new Date().toISOString(), viewer_id: viewerId(), ...extra });
    if (this.pending.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_DELAY_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.pending.length) this.send(this.pending.splice(0, MAX_BATCH), 1);
  }

  private send(events: BeaconEvent[], attempt: number): void {
    const retry = () => {
      if (attempt < 2) setTimeout(() => this.send(events, attempt + 1), document.visibilityState === 'hidden' ? 0 : RETRY_DELAY_MS);
    };
    try {
      fetch(this.endpoint, {
        method: 'POST',
        // keepalive lets the request outlive the page, so events queued at unload still arrive.
        keepalive: true,
        credentials: 'omit',
        headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ events }),
      }).then(
        (res) => {
          // 4xx other than 429 will not change on a retry (bad origin, bad key, bad body).
          if (res.status === 429 || res.status >= 500) retry();
        },
        retry,
      );
    } catch {
      retry();
    }
  }
}

const queues = new Map<string, BeaconQueue>();
let unloadHooked = false;

export function beaconQueue(apiBase: string, key: string): BeaconQueue {
  const id = `${apiBase}\u0000${key}`;
  let queue = queues.get(id);
  if (!queue) {
    queue = new BeaconQueue(`${apiBase}/v1/beacon`, key);
    queues.set(id, queue);
  }
  if (!unloadHooked) {
    unloadHooked = true;
    // The last chance to send what is waiting: the page is being hidden or closed.
    const flushAll = () => queues.forEach((q) => q.flush());
    document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && flushAll());
    addEventListener('pagehide', flushAll);
  }
  return queue;
}

export type { BeaconQueue };

const VIEW_RATIO = 0.5;
const VIEW_DWELL_MS = 1_000;

/**
 * Calls onView once, after the element has been at least half visible for a full second while the
 * page itself was visible. Returns a function that stops watching.
 */
export function watchView(el: Element, onView: () => void): () => void {
  let visibleEnough = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let done = false;
  const stopTimer = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const arm = () => {
    stopTimer();
    if (done || !visibleEnough || document.visibilityState !== 'visible') return;
    timer = setTimeout(() => {
      if (done) return;
      stop();
      onView();
    }, VIEW_DWELL_MS);
  };
  const observer = new IntersectionObserver(
    (entries) => {
      const last = entries[entries.length - 1];
      // A hair of tolerance: the ratio at exactly half can come back as 0.4999….
      visibleEnough = last.isIntersecting && last.intersectionRatio >= VIEW_RATIO - 0.005;
      arm();
    },
    { threshold: [0, VIEW_RATIO, 1] },
  );
  const onVisibility = () => arm();
  function stop() {
    done = true;
    stopTimer();
    observer.disconnect();
    document.removeEventListener('visibilitychange', onVisibility);
  }
  observer.observe(el);
  document.addEventListener('visibilitychange', onVisibility);
  return stop;
}
