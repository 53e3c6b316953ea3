import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

const REDACT = { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' };

/**
 * JSON lines for log collectors; one readable line per entry when a person is watching a terminal
 * (`pretty`, which the CLI sets from stdout being a TTY).
 */
export function createLogger(level: string, pretty = false): Logger {
  const options = { level, base: undefined, redact: REDACT };
  if (!pretty) return pino(options);
  return pino(options, { write: (line: string) => process.stdout.write(prettyLine(line, true)) });
}

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '90'],
  20: ['DEBUG', '90'],
  30: ['INFO ', '36'],
  40: ['WARN ', '33'],
  50: ['ERROR', '31'],
  60: ['FATAL', '41'],
};

const show = (v: unknown) => (typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v));

/** `12:04:05 INFO  request GET /v1/products 200 3.1ms  reqId=req_…`: the fields a person reads first, then the rest. */
export function prettyLine(line: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, err, req, res, responseTime, ...rest } = entry as Record<string, any>;
  const [name, code] = LEVELS[level as number] ?? [String(level), '0'];
  const parts = [new Date(Number(time) || Date.now()).toTimeString().slice(0, 8), colour ? `\x1b[${code}m${name}\x1b[0m` : name, String(msg ?? '')];
  if (req) parts.push(`${req.method} ${req.url}`);
  if (res) parts.push(`${res.statusCode}${typeof responseTime === 'number' ? ` ${responseTime.toFixed(1)}ms` : ''}`);
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${show(v)}`);
  let out = parts.filter(Boolean).join(' ') + (fields.length ? `  ${fields.join(' ')}` : '') + '\n';
  if (err?.stack) out += String(err.stack).replace(/^/gm, '    ') + '\n';
  else if (err?.message) out += `    ${err.message}\n`;
  return out;
}

const LEVEL_VALUES = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 } as const;
type LevelName = keyof typeof LEVEL_VALUES;
type LogMethod = (...args: unknown[]) => void;

/**
 * A request's logger, bound to its id. Fastify makes one per request; a pino child costs an object and a
 * serialised binding each time, paid even when nothing is logged (the usual case at LOG_LEVEL=warn). This
 * one makes the child on the first entry actually written, so a request that logs nothing costs one small
 * object. The level is the parent's, read at each call (a level changed at run time applies at once).
 */
class RequestLogger {
  private made: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object,
  ) {}

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  /** Writes through the real child, made now if this is the first entry; nothing below the level. */
  write(value: number, name: LevelName, args: unknown[]): void {
    if (value < (this.made ?? this.parent).levelVal) return;
    (this.logger[name] as (...a: unknown[]) => void)(...args);
  }

  declare fatal: LogMethod;
  declare error: LogMethod;
  declare warn: LogMethod;
  declare info: LogMethod;
  declare debug: LogMethod;
  declare trace: LogMethod;
  silent(): void {}

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Record<string, unknown>, options?: object): Logger {
    return this.logger.child(bindings, options);
  }
}

for (const [name, value] of Object.entries(LEVEL_VALUES) as [LevelName, number][]) {
  RequestLogger.prototype[name] = function (this: RequestLogger, ...args: unknown[]) {
    this.write(value, name, args);
  };
}

/** For fastify's childLoggerFactory. A route with its own log level gets a real child at once. */
export function requestLogger(parent: Logger, bindings: Record<string, unknown>, options: { level?: string }): Logger {
  if (options.level) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings, options) as unknown as Logger;
}

/**
 * For an app that gives fastify no logger of its own (see app.ts: then fastify adds no per-response
 * listeners for access lines): each request's logger still writes to `parent`, bound to its id.
 */
export function requestLoggerOf(parent: Logger) {
  return (_fastifyLogger: unknown, bindings: Record<string, unknown>, options: { level?: string }): Logger => requestLogger(parent, bindings, options);
}
