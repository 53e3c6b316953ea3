import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config.js';
import { closeDeps, createDeps, essentialAdapters, type Deps } from './deps.js';
import { createLogger } from './logger.js';
import { addMember, bootstrap, countOrganizations, PLANS, type Plan } from './modules/orgs/index.js';
import { MODULE_MIGRATIONS } from './migrations.js';
import { openDatabase } from './platform/db/index.js';
import { COMMAND_HELP, USAGE, wantsHelp } from './cli-help.js';
import { ensurePortFree, isPortBusy, PortBusyError } from './port-check.js';
import { VERSION } from './version.js';

class UsageError extends Error {}

function fail(message: string): never {
  throw new UsageError(message);
}

function intFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number >= 0`);
  return n;
}

/** Stops on SIGTERM/SIGINT: the server stops accepting, running jobs finish or are released. */
function onShutdown(stop: () => Promise<void>, logger: Deps['logger']) {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

async function serve(config: Readonly<Config>, withWorker: boolean) {
  // Before anything is created or printed: a busy port must not cost the one-time keys.
  await ensurePortFree(config.host, config.port);
  const logger = createLogger(config.logLevel, process.stdout.isTTY === true);
  const deps = await createDeps(config, logger);
  if ((await countOrganizations(deps.database.db)) === 0) {
    const origin = new URL(config.publicUrl).origin;
    // No fixed password anywhere: a fresh install gets its own, shown once below.
    const password = randomBytes(15).toString('base64url');
    const demo = await bootstrap(deps, {
      org: 'Demo',
      email: 'demo@plinth.local',
      password,
      plan: 'active',
      credits: 1000,
      allowedDomains: [...new Set([origin, `http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`])],
    });
    // To the terminal (stderr), never the JSON log on stdout: log collectors keep what they are given.
    process.stderr.write(
      `\nPlinth created a demo organization (${demo.org_id}).\n` +
        `  Secret key (shown once):  ${demo.secret_key}\n` +
        `  Publishable key:          ${demo.publishable_key}\n` +
        `  Dashboard sign-in:        demo@plinth.local / ${password}  (shown once)\n\n` +
        `Try:  curl -H "Authorization: Bearer ${demo.secret_key}" ${config.publicUrl}/v1/projects\n\n`,
    );
  }
  // Loaded here, not at the top: `plinth --help` and usage errors should not pay for the whole app.
  const { buildApp } = await import('./app.js');
  const app = await buildApp(deps, { logRequests: true });
  const worker = withWorker ? await import('./worker.js') : null;
  if (worker) {
    worker.registerJobHandlers(deps);
    await deps.jobs.start();
  }
  await app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
    throw isPortBusy(err) ? new PortBusyError(config.port, config.host, err.code!) : err;
  });
  // Once listening: the browser's start must not hold back readiness.
  if (worker) void worker.warmWorker(deps);
  // The terminal, like the demo banner: stdout stays the JSON log.
  process.stderr.write(`Plinth dashboard: ${config.publicUrl}/  (sign in with your email and password)\n`);
  const adapters = Object.fromEntries(Object.entries(essentialAdapters(deps)).map(([name, adapter]) => [name, adapter.kind]));
  logger.info({ url: config.publicUrl, worker: withWorker, ...adapters }, 'plinth is serving');
  onShutdown(async () => {
    await app.close();
    await closeDeps(deps);
  }, logger);
}

async function worker(config: Readonly<Config>) {
  const logger = createLogger(config.logLevel, process.stdout.isTTY === true);
  const deps = await createDeps(config, logger);
  const { registerJobHandlers, warmWorker } = await import('./worker.js');
  registerJobHandlers(deps);
  await deps.jobs.start();
  void warmWorker(deps);
  logger.info({ jobs: deps.jobs.kind }, 'plinth worker is running');
  onShutdown(() => closeDeps(deps), logger);
}

async function migrate(config: Readonly<Config>) {
  const database = openDatabase(config.databaseUrl, MODULE_MIGRATIONS);
  try {
    const report = await database.migrate();
    process.stdout.write(`migrated ${report.kind} database\n`);
  } finally {
    await database.close();
  }
}

async function withDeps<T>(config: Readonly<Config>, fn: (deps: Deps) => Promise<T>): Promise<T> {
  const logger = createLogger('warn');
  const deps = await createDeps(config, logger);
  try {
    return await fn(deps);
  } finally {
    await closeDeps(deps);
  }
}

async function bootstrapCommand(config: Readonly<Config>, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      'active-product-cap': { type: 'string' },
      'allowed-domain': { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.org) fail('--org is required');
  if (!values.email || !values.email.includes('@')) fail('--email is required');
  if (values.plan && !(PLANS as readonly string[]).includes(values.plan)) fail(`--plan must be one of ${PLANS.join(', ')}`);
  const { normaliseOriginEntry } = await import('./http/origins.js');
  const allowedDomains = (values['allowed-domain'] ?? []).map((d) => normaliseOriginEntry(d) ?? fail(`--allowed-domain ${d} is not an origin`));
  const result = await withDeps(config, (deps) =>
    bootstrap(deps, {
      org: values.org!,
      email: values.email!,
      password: values.password,
      plan: values.plan as Plan | undefined,
      credits: intFlag(values.credits, 'credits'),
      activeProductCap: intFlag(values['active-product-cap'], 'active-product-cap') ?? null,
      allowedDomains,
    }),
  );
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    process.stdout.write(
      `organization ${result.org_id}\nuser         ${result.user_id}\nproject      ${result.project_id}\n` +
        `secret key   ${result.secret_key}  (shown once)\npublishable  ${result.publishable_key}\n`,
    );
  }
}

async function memberCommand(config: Readonly<Config>, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      'org-id': { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string', default: 'member' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values['org-id']) fail('--org-id is required');
  if (!values.email) fail('--email is required');
  if (!['owner', 'admin', 'member'].includes(values.role!)) fail('--role must be owner, admin or member');
  const result = await withDeps(config, (deps) =>
    addMember(deps, { orgId: values['org-id']!, email: values.email!, password: values.password, role: values.role as 'member' }),
  );
  process.stdout.write(values.json ? JSON.stringify(result) + '\n' : `user ${result.user_id}\n`);
}

async function creditsCommand(config: Readonly<Config>, args: string[]) {
  const { values } = parseArgs({
    args,
    options: { 'org-id': { type: 'string' }, add: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const orgId = values['org-id'] ?? fail('--org-id is required');
  const add = values.add === undefined ? undefined : Number(values.add);
  if (add !== undefined && (!Number.isInteger(add) || add < 1 || add > 1_000_000_000)) fail('--add must be a whole number from 1 to 1000000000');
  if (values.reason !== undefined && add === undefined) fail('--reason goes with --add');
  const { creditStatement, grantCredits } = await import('./modules/orgs/index.js');
  const { AppError } = await import('./core/errors.js');
  try {
    if (add !== undefined) {
      const granted = await withDeps(config, (deps) => grantCredits(deps, { orgId, amount: add, reason: values.reason }));
      process.stdout.write(values.json ? JSON.stringify(granted) + '\n' : `added ${granted.added} credits to ${orgId}; balance ${granted.balance}\n`);
      return;
    }
    const statement = await withDeps(config, (deps) => creditStatement(deps, orgId));
    if (values.json) return void process.stdout.write(JSON.stringify(statement) + '\n');
    const lines = statement.entries.map((e) => `  ${e.created_at}  ${(e.delta > 0 ? '+' : '') + e.delta}`.padEnd(36) + `  → ${e.balance_after}`.padEnd(12) + `  ${e.reason}${e.ref ? ` (${e.ref})` : ''}`);
    process.stdout.write(`${orgId}: ${statement.balance} credits\n${lines.length ? `last entries:\n${lines.join('\n')}\n` : 'no ledger entries\n'}`);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') fail(`no organization ${orgId}`);
    throw err;
  }
}

/** `env`: the environment to configure from, when not this process's own (tests). */
export async function main(argv: string[], env?: Record<string, string | undefined>): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(USAGE + '\n');
      return;
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      process.stdout.write(`plinth ${VERSION}\n`);
      return;
    }
    if (COMMAND_HELP[command] && wantsHelp(rest)) {
      process.stdout.write(COMMAND_HELP[command] + '\n');
      return;
    }
    // The mat needs no configuration: it can be printed before anything is set up.
    if (command === 'capture-mat') return await (await import('./modules/capture-mat/index.js')).captureMatCommand(rest);
    const config = loadConfig(env);
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({ args: rest, options: { 'no-worker': { type: 'boolean', default: false } } });
        return await serve(config, !values['no-worker']);
      }
      case 'worker':
        return await worker(config);
      case 'migrate':
        return await migrate(config);
      case 'bootstrap':
        return await bootstrapCommand(config, rest);
      case 'member':
        return await memberCommand(config, rest);
      case 'credits':
        return await creditsCommand(config, rest);
      case 'segmenter':
        return await (await import('./segmenter-command.js')).segmenterCommand(config, rest);
      default:
        fail(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof PortBusyError) {
      process.stderr.write(`plinth: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`plinth: ${(err as Error).message}\n\n${(command && COMMAND_HELP[command]) || USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
}
