import { createServer } from 'node:net';

/** The port is taken: said in one line with the way out, instead of a stack trace. */
export class PortBusyError extends Error {
  constructor(readonly port: number, readonly host: string, readonly code: string) {
    super(
      code === 'EACCES'
        ? `port ${port} on ${host} needs more privileges than this user has. Choose another port, e.g. PORT=3001 npm start (or PORT=3001 plinth serve).`
        : `port ${port} on ${host} is already in use (another Plinth, or another program). Stop it, or choose another port: PORT=${port + 1} npm start (or PORT=${port + 1} plinth serve).`,
    );
  }
}

export const isPortBusy = (err: unknown): err is NodeJS.ErrnoException =>
  (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE' || (err as NodeJS.ErrnoException)?.code === 'EACCES';

/**
 * Binds the port once and lets it go, before anything is created or printed: a busy port must stop the start
 * before one-time keys scroll past. The real listen can still lose a race; it reports the same way.
 */
export function ensurePortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(isPortBusy(err) ? new PortBusyError(port, host, err.code!) : err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
