import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { essentialAdapters, type Deps } from '../../deps.js';
import { optionalPrincipal } from '../../http/auth.js';
import type { Authenticator } from '../auth/index.js';
import { platformTables } from '../../platform/db/index.js';
import { liveWorkers } from '../../platform/jobs/heartbeat.js';
import { ErrorResponses } from '../../http/schemas.js';
import { sendError } from '../../http/error-handler.js';
import { toolCapabilities } from '../../platform/tools.js';
import { describeSegmenter } from '@plinth/media';

const Check = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('fail')]),
  latency_ms: Type.Number(),
  kind: Type.String(),
  error: Type.Optional(Type.String()),
});

const Capability = Type.Object({ available: Type.Boolean(), version: Type.Union([Type.String(), Type.Null()]) });

const Worker = Type.Object({
  id: Type.String({ description: 'The worker process: its host, process id and a random suffix.' }),
  host: Type.String({ description: 'The machine (host name) it runs on.' }),
  started_at: Type.String({ format: 'date-time', description: 'When the process started working jobs.' }),
  last_heartbeat_at: Type.String({ format: 'date-time', description: 'Its last heartbeat; workers beat every 5 s.' }),
  jobs_held: Type.Integer({ minimum: 0, description: 'Jobs it is running now.' }),
});

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    version: Type.String(),
    checks: Type.Object({ database: Check, storage: Check, jobs: Check }),
    /** System tools. A missing one fails only the jobs that need it, so it degrades the answer without a 503. */
    capabilities: Type.Object({ ffmpeg: Capability, chromium: Capability, colmap: Capability }),
    /** The cut-out in use: IS-Net with its model, or the classical backdrop estimate refined by GrabCut. */
    segmenter: Type.Object({
      name: Type.Union([Type.Literal('isnet'), Type.Literal('classical')]),
      model: Type.Union([Type.String(), Type.Null()]),
    }),
    /**
     * Worker processes whose heartbeat is under 15 s old, oldest first. Only for a secret key or a dashboard
     * session: absent for anyone else (no key, a publishable key), who learns nothing of the deployment's machines.
     */
    workers: Type.Optional(
      Type.Array(Worker, {
        description:
          'Worker processes whose heartbeat is under 15 s old, oldest first. Only for a secret key or a dashboard session; absent otherwise.',
      }),
    ),
  },
  { title: 'Health' },
);

const CHECK_TIMEOUT_MS = 2_000;
/**
 * Probes touch the database, the disk or S3, and the job store: far dearer than the request. Results
 * are shared for a second, so a load balancer polling hard cannot load the dependencies it watches.
 */
const CACHE_MS = 1_000;

async function probe(adapter: { kind: string; ping(): Promise<void> }) {
  const { kind } = adapter;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      adapter.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok' as const, kind, latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    // The reason stays in the log; the answer says only which dependency failed.
    return { status: 'fail' as const, kind, latency_ms: Math.round(performance.now() - started), error: 'unavailable', cause: err };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Public, so load balancers can call it without a key. The database is essential (503 when down);
 * storage and jobs degrade the answer but keep it 200. A secret key or a session also sees the live workers.
 */
export const healthRoutes =
  (deps: Deps, version: string, auth: Authenticator): FastifyPluginAsyncTypebox =>
  async (app) => {
    let cached: { at: number; checks: Promise<Awaited<ReturnType<typeof probe>>[]> } | null = null;
    const runChecks = () => {
      if (!cached || performance.now() - cached.at > CACHE_MS) {
        cached = {
          at: performance.now(),
          checks: Promise.all(Object.values(essentialAdapters(deps)).map(probe)),
        };
      }
      return cached.checks;
    };
    app.get(
      '/v1/health',
      {
        config: { auth: 'public' },
        schema: { tags: ['Health'], summary: 'Service health', security: [], response: { 200: Health, ...ErrorResponses } },
      },
      async (request, reply) => {
        const [[database, storage, jobs], capabilities, principal] = await Promise.all([
          runChecks(),
          toolCapabilities(deps.config.tools),
          request.headers.authorization || request.headers.cookie ? optionalPrincipal(request, auth) : null,
        ]);
        for (const [name, c] of Object.entries({ database, storage, jobs })) {
          if ('cause' in c) request.log.warn({ err: c.cause, check: name }, 'health check failed');
        }
        const strip = ({ cause: _c, ...rest }: typeof database & { cause?: unknown }) => rest;
        const checks = { database: strip(database), storage: strip(storage), jobs: strip(jobs) };
        if (database.status === 'fail') {
          return sendError(reply, 503, 'service_unavailable', 'The database is unreachable.', { checks });
        }
        const ok = storage.status === 'ok' && jobs.status === 'ok' && Object.values(capabilities).every((c) => c.available);
        const segmenter = describeSegmenter(deps.config.segmenter);
        const answer = { status: ok ? ('ok' as const) : ('degraded' as const), version, checks, capabilities, segmenter };
        if (principal?.kind !== 'secret_key' && principal?.kind !== 'session') return answer;
        return { ...answer, workers: await liveWorkers(platformTables(deps.database.db)) };
      },
    );
  };
