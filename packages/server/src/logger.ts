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
