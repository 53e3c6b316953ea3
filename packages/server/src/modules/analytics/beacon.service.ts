import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { writeOrg } from '../../http/reach.js';
import type { Principal } from '../auth/principal.js';
import { writeBeaconEvents } from './analytics.repo.js';
import type { BeaconEvent, BeaconType } from './analytics.types.js';
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
}

export interface BeaconBody {
  events: BeaconInput[];
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
 * Accepts beacons and answers only once they are committed (group commit: see group-commit.ts).
 * One per app, since it owns the batch in progress; close() writes what is waiting.
 */
export class BeaconIntake {
  private readonly commits: GroupCommit<BeaconEvent>;

  constructor(
    private readonly deps: Pick<Deps, 'database' | 'clock'>,
    options: GroupCommitOptions = DEFAULT_GROUP_COMMIT,
  ) {
    this.commits = new GroupCommit((events) => writeBeaconEvents(deps.database.db, events), options);
  }

  get stats() {
    return this.commits.stats;
  }

  async record(principal: Principal, body: BeaconBody, queryOrgId?: string): Promise<BeaconReceipt> {
    // A publishable key reaches only its project's organization, so whatever product_id it sends,
    // the events land there: a key of project A can never write into organization B.
    const orgId = writeOrg(principal, body.org_id ?? queryOrgId);
    const internal = principal.kind !== 'publishable_key';
    const receivedMs = this.deps.clock.now().getTime();
    const receivedAt = new Date(receivedMs).toISOString();
    let clamped = 0;
    const events = body.events.map((input): BeaconEvent => {
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
        clamped: time.clamped,
      };
    });
    try {
      await this.commits.submit(events);
    } catch (err) {
      if (err instanceof GroupCommitClosedError) {
        throw new AppError('service_unavailable', 'The server is shutting down; send the beacon again.', null, { 'Retry-After': '1' });
      }
      throw err;
    }
    return { accepted: events.length, clamped };
  }

  close(): Promise<void> {
    return this.commits.close();
  }
}
