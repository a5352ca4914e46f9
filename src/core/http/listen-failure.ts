/**
 * Why a listen failed, in words a person can act on. uWS only reports that it did not get a
 * listen socket; the same bind through node:net gives the errno (EADDRINUSE, EACCES,
 * EADDRNOTAVAIL), which is what the message then says.
 */
import { createServer } from 'node:net';

export class ListenError extends Error {
  override name = 'ListenError';
  constructor(
    readonly code: string,
    host: string,
    port: number,
  ) {
    super(`cannot listen on ${host}:${port}: ${REASONS[code] ?? `the address cannot be bound (${code})`}`);
  }
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (another nightgate or another program holds it; set NIGHTGATE_PORT)',
  EACCES: 'permission denied (ports below 1024 need privileges; set NIGHTGATE_PORT)',
  EADDRNOTAVAIL: "the address is not one of this machine's (set NIGHTGATE_HOST)",
};

/** The errno a bind of host:port fails with now, or `UNKNOWN` if node:net can bind it (the port was freed meanwhile). */
export function listenFailureCode(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'UNKNOWN'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve('UNKNOWN')));
  });
}
