import { describe, expect, it } from 'vitest';
import { prettyLine } from './logger.js';

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
