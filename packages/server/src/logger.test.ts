import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { prettyLine, requestLogger, requestLoggerOf } from './logger.js';

describe('terminal log lines', () => {
  it('puts time, level, message and the request first, then the other fields', () => {
    const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 12, 4, 5), msg: 'request completed', reqId: 'req_1', req: { method: 'GET', url: '/v1/products' }, res: { statusCode: 200 }, responseTime: 3.14 });
    expect(prettyLine(line)).toMatch(/^\d\d:\d\d:\d\d INFO  request completed GET \/v1\/products 200 3\.1ms {2}reqId=req_1\n$/);
  });

  it('indents an error stack under its line, and colours the level only when asked', () => {
    const out = prettyLine(JSON.stringify({ level: 50, time: 0, msg: 'job failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }), true);
    expect(out).toContain('\x1b[31mERROR\x1b[0m job failed');
    expect(out).toContain('\n    Error: boom\n        at x\n');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(prettyLine('plain text\n')).toBe('plain text\n');
  });
});

describe("a request's logger", () => {
  const parentAt = (level: string) => {
    const lines: Record<string, unknown>[] = [];
    const parent = pino({ level, base: undefined }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { parent, lines, child: vi.spyOn(parent, 'child') };
  };

  it('below the level writes nothing and makes no child', () => {
    const { parent, lines, child } = parentAt('warn');
    const log = requestLogger(parent, { reqId: 'req_1' }, {});
    log.info({ req: { url: '/v1/beacon' } }, 'incoming request');
    log.debug('detail');
    expect(lines).toEqual([]);
    expect(child).not.toHaveBeenCalled();
  });

  it('at the level writes with the request id, through one child made on the first entry', () => {
    const { parent, lines, child } = parentAt('warn');
    const log = requestLogger(parent, { reqId: 'req_1' }, {});
    log.error({ err: new Error('boom') }, 'unhandled error');
    log.warn('second');
    expect(lines.map((l) => [l.level, l.msg, l.reqId])).toEqual([
      [50, 'unhandled error', 'req_1'],
      [40, 'second', 'req_1'],
    ]);
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('follows a level changed on the parent after it was made', () => {
    const { parent, lines } = parentAt('warn');
    const log = requestLogger(parent, { reqId: 'req_2' }, {});
    parent.level = 'info';
    log.info('now shown');
    expect(lines.map((l) => l.msg)).toEqual(['now shown']);
  });

  it('writes to our logger when fastify was given none (below info, no access lines)', () => {
    const { parent, lines } = parentAt('warn');
    const fastifysOwn = { child: () => fastifysOwn };
    const log = requestLoggerOf(parent)(fastifysOwn, { reqId: 'req_3' }, {});
    log.info('incoming request');
    log.error({ err: new Error('boom') }, 'unhandled error');
    expect(lines.map((l) => [l.msg, l.reqId, (l.err as { message: string }).message])).toEqual([['unhandled error', 'req_3', 'boom']]);
  });
});
