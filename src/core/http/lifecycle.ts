/**
 * The server's life around its requests: binding the port (exclusively, and handing connections
 * to other threads' apps with server.threads > 1), and the requests in flight that shutdown
 * waits for, or aborts once its deadline passes.
 */
import type { GatewayError } from '../errors.js';
import type { Exchange } from './exchange.js';
import { ListenError, listenFailureCode } from './listen-failure.js';
import { LISTEN_EXCLUSIVE_PORT, type TemplatedApp, type us_listen_socket } from './uws.js';

/** What the 20.57 build adds to an app for several threads on one port (not in the typings; the 20.30 build lacks it). */
export interface ChildApps {
  getDescriptor(): number;
  addChildAppDescriptor(descriptor: number): void;
  removeChildAppDescriptor(descriptor: number): void;
}

/** Let `acceptor`, which holds the port, hand new connections to `app` too (round-robin: threads/). */
export function joinAcceptor(acceptor: TemplatedApp, app: TemplatedApp): void {
  (acceptor as unknown as ChildApps).addChildAppDescriptor((app as unknown as ChildApps).getDescriptor());
}

/** An exclusive listen socket on host:port (uws.ts, LISTEN_EXCLUSIVE_PORT), or a ListenError saying why not. */
export function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  // The typings omit the (host, port, options, cb) form the native listen accepts.
  const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (s: us_listen_socket | false) => void) => TemplatedApp;
  return new Promise((resolve, reject) => {
    listen.call(app, host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket) return resolve(socket);
      void listenFailureCode(host, port).then((code) => reject(new ListenError(code, host, port)));
    });
  });
}

/** The requests between entering the pipeline and their answer (or their client leaving). */
export class InFlight {
  count = 0;
  /** Those that went asynchronous (only those can outlive their handler call). */
  private readonly live = new Set<Exchange>();
  private waiters: Array<() => void> = [];

  opened(): void {
    this.count++;
  }

  /** The request went asynchronous: keep it for shutdown. */
  track(ex: Exchange): void {
    this.live.add(ex);
  }

  /** The request was answered (or its client left). */
  ended(ex: Exchange): void {
    this.count--;
    if (ex.controller) this.live.delete(ex);
  }

  /** Resolve the `drained` waiters when nothing is in flight any more. */
  settle(): void {
    if (this.count !== 0 || this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves when no request is in flight (or at once). */
  drained(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Abort every in-flight request's signal and answer it with `reason` (the shutdown deadline passed). */
  abortAll(reason: GatewayError): void {
    for (const ex of this.live) {
      ex.controller?.abort(reason);
      if (!ex.done && !ex.aborted) ex.fail(reason);
    }
  }
}
