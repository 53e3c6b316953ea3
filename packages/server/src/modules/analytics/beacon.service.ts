import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { writeOrg } from '../../core/reach.js';
import type { Principal } from '../../core/principal.js';
import { purgeBeaconEvents } from './analytics.repo.js';
import { writeBeaconEvents } from './beacon-writes.js';
import { ExposureMemory } from './exposure-memory.js';
import type { Arm, BeaconEvent, BeaconType, ConversionName, Device } from './analytics.types.js';
import { GroupCommit, GroupCommitClosedError, type GroupCommitOptions } from './group-commit.js';

/** A visitor's clock may be a little ahead of ours; beyond this an event time is not believed. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** Older than this, an event is a replay or a queue drained much later: counted now, not then. */
export const MAX_AGE_MS = 24 * 3_600_000;

/**
 * No fixed wait: a batch is written at the end of the event-loop turn its first beacon arrived in,
 * and beacons arriving while it commits (an fsync, a few ms) make up the next one. Under load that
 * gathers as many as a fixed window would, without making a lone beacon wait; measured with
 * bench/beacon.mjs, a 2 ms window lost throughput and latency at 10 and 100 clients alike.
 * 500 events keep one transaction short even when a burst is large.
 */
export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = { windowMs: 0, maxItems: 500 };

export interface BeaconInput {
  type: BeaconType;
  product_id: string;
  occurred_at?: string;
  viewer_id?: string;
  duration_ms?: number;
  name?: ConversionName;
  value?: number;
  currency?: string;
  experiment_id?: string;
  arm?: Arm;
}

/** What the request says about the page an event came from, beside its body. */
export interface BeaconContext {
  userAgent?: string;
  origin?: string;
}

export interface BeaconBody {
  events: BeaconInput[];
  org_id?: string;
}

/** `POST /v1/conversions`: a conversion from the shop's server; product_id is optional there. */
export interface ConversionInput {
  viewer_id: string;
  name: ConversionName;
  value?: number;
  currency?: string;
  product_id?: string;
  occurred_at?: string;
  experiment_id?: string;
  arm?: Arm;
  org_id?: string;
}

export interface BeaconReceipt {
  accepted: number;
  clamped: number;
}

/**
 * When an event happened, as far as we are willing to believe the client: a time too far in the
 * past or the future becomes the receive time, flagged, so one bad clock cannot move counts into
 * another day or fill buckets that are already reported.
 */
export function eventTime(occurredAt: string | undefined, receivedMs: number, receivedAt = new Date(receivedMs).toISOString()): { at: string; clamped: boolean } {
  if (occurredAt === undefined) return { at: receivedAt, clamped: false };
  const ms = Date.parse(occurredAt);
  if (Number.isNaN(ms) || ms < receivedMs - MAX_AGE_MS || ms > receivedMs + MAX_FUTURE_SKEW_MS) {
    return { at: receivedAt, clamped: true };
  }
  return { at: new Date(ms).toISOString(), clamped: false };
}

/**
 * The device class of a browser, from its User-Agent: tablets first (an Android without "Mobile" is a tablet,
 * as Google's own guidance says), then phones. iPadOS Safari presents itself as a Mac and counts as a desktop.
 */
export function deviceOf(userAgent: string | undefined): Device | null {
  if (!userAgent) return null;
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Android|Windows Phone/i.test(userAgent)) return 'mobile';
  return 'desktop';
}

/**
 * The rules one field cannot state alone: a conversion says what was converted, only a conversion carries a
 * name, value or currency, and an experiment id comes with its arm.
 */
export function checkEvents(events: readonly BeaconInput[], path = 'body.events'): void {
  const errors: { path: string; message: string }[] = [];
  events.forEach((e, i) => {
    const at = (field: string) => `${path}/${i}/${field}`;
    if (e.type === 'conversion') {
      if (e.name === undefined) errors.push({ path: at('name'), message: 'is required for a conversion (add_to_cart, purchase or lead)' });
    } else if (e.name !== undefined || e.value !== undefined || e.currency !== undefined) {
      for (const field of ['name', 'value', 'currency'] as const) {
        if (e[field] !== undefined) errors.push({ path: at(field), message: 'is only taken on a conversion' });
      }
    }
    if ((e.experiment_id === undefined) !== (e.arm === undefined)) {
      errors.push({ path: at(e.arm === undefined ? 'arm' : 'experiment_id'), message: 'experiment_id and arm are sent together' });
    }
  });
  if (errors.length) throw validationFailed(errors);
}

/**
 * Accepts beacons and answers only once they are committed (group commit: see group-commit.ts).
 * One per app, since it owns the batch in progress; close() writes what is waiting.
 */
/** A beacon refused because the server is shutting down gets a 503 to retry, not a 500. */
const unavailableWhenClosed = (err: unknown): unknown =>
  err instanceof GroupCommitClosedError ? new AppError('service_unavailable', 'The server is shutting down; send the beacon again.', null, { 'Retry-After': '1' }) : err;

/** Events ready for the group commit, and the receipt their commit earns. */
interface Prepared {
  events: BeaconEvent[];
  receipt: BeaconReceipt;
}

export class BeaconIntake {
  private readonly commits: GroupCommit<BeaconEvent>;
  /** the last receive time stored, and its text */
  private received = { ms: Number.NaN, at: '' };
  /** requests taken so far: each request's events carry its number */
  private requests = 0;

  constructor(
    private readonly deps: Pick<Deps, 'database' | 'clock'>,
    options: GroupCommitOptions = DEFAULT_GROUP_COMMIT,
  ) {
    const exposures = new ExposureMemory();
    this.commits = new GroupCommit((events) => writeBeaconEvents(deps.database.db, events, exposures), options);
  }

  get stats() {
    return this.commits.stats;
  }

  /** Rejects (never throws) with a validation or access error, or once the events' transaction has failed. */
  record(principal: Principal, body: BeaconBody, queryOrgId?: string, context: BeaconContext = {}): Promise<BeaconReceipt> {
    let prepared: Prepared;
    try {
      prepared = this.prepare(principal, body, queryOrgId, context);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.commit(prepared);
  }

  /**
   * record() for the beacon lane, answered through callbacks: exactly one of them is called, once the events are
   * committed or refused. A request then costs the hot path no promise of its own.
   */
  recordThen(principal: Principal, body: BeaconBody, context: BeaconContext, stored: (receipt: BeaconReceipt) => void, failed: (err: unknown) => void): void {
    let prepared: Prepared;
    try {
      prepared = this.prepare(principal, body, undefined, context);
    } catch (err) {
      failed(err);
      return;
    }
    this.commits.enqueue(
      prepared.events,
      () => stored(prepared.receipt),
      (err) => failed(unavailableWhenClosed(err)),
    );
  }

  private prepare(principal: Principal, body: BeaconBody, queryOrgId: string | undefined, context: BeaconContext): Prepared {
    checkEvents(body.events);
    // A publishable key reaches only its project's organization, so whatever product_id it sends,
    // the events land there: a key of project A can never write into organization B.
    const orgId = writeOrg(principal, body.org_id ?? queryOrgId);
    const internal = principal.kind !== 'publishable_key';
    return this.events(orgId, internal, body.events, internal ? {} : context);
  }

  private commit({ events, receipt }: Prepared): Promise<BeaconReceipt> {
    return this.commits.submit(events).then(
      () => receipt,
      (err: unknown) => {
        throw unavailableWhenClosed(err);
      },
    );
  }

  /**
   * A conversion the shop's server saw (an order placed), for a shopper the element knew by viewer_id. It is the
   * shop's customer, not its staff, so it is counted like a page's events, not as internal traffic.
   */
  async recordConversion(principal: Principal, input: ConversionInput): Promise<BeaconReceipt> {
    const orgId = writeOrg(principal, input.org_id);
    const { org_id: _org, product_id, ...rest } = input;
    return this.commit(this.events(orgId, false, [{ ...rest, type: 'conversion', product_id: product_id ?? '' }], {}));
  }

  private events(orgId: string, internal: boolean, inputs: BeaconInput[], context: BeaconContext): Prepared {
    const device = deviceOf(context.userAgent);
    const referrer = context.origin ?? null;
    const receivedMs = this.deps.clock.now().getTime();
    // Beacons arriving within the same millisecond (most of them, under load) share its text.
    if (receivedMs !== this.received.ms) this.received = { ms: receivedMs, at: new Date(receivedMs).toISOString() };
    const receivedAt = this.received.at;
    let clamped = 0;
    const request = ++this.requests;
    const events = inputs.map((input): BeaconEvent => {
      const time = eventTime(input.occurred_at, receivedMs, receivedAt);
      if (time.clamped) clamped++;
      return {
        orgId,
        subjectId: input.product_id,
        type: input.type,
        internal,
        occurredAt: time.at,
        receivedAt,
        viewerId: input.viewer_id ?? null,
        durationMs: input.duration_ms ?? null,
        name: input.name ?? null,
        value: input.value ?? null,
        currency: input.currency ?? null,
        experimentId: input.experiment_id ?? null,
        arm: input.arm ?? null,
        device,
        referrer,
        clamped: time.clamped,
        request,
      };
    });
    return { events, receipt: { accepted: events.length, clamped } };
  }

  close(): Promise<void> {
    return this.commits.close();
  }
}

/** Deletes up to `batch` beacon events older than `before` (retention); answers how many went. */
export const deleteBeaconEventsBefore = (db: Executor, before: string, batch: number) => purgeBeaconEvents(db, before, batch);
