/**
 * The `native` backend: nightgate runs `midnight-proof-server` itself on a loopback port
 * (native/supervisor.ts) and proves through it exactly as the `upstream` backend does. While the
 * child is starting or restarting, requests get 503 PROVER_UNAVAILABLE with Retry-After instead
 * of a connection error.
 */
import type { Logger } from 'pino';
import type { ComponentHealth } from '../../infra/app-context.js';
import type { Clock } from '../../core/clock.js';
import { GatewayError } from '../../core/errors.js';
import { locateProofServer } from '../../../native/locate.js';
import { ProofServerSupervisor } from '../../../native/supervisor.js';
import type { CallOptions, ProverBackend, ProvingQueue, Relayed } from '../../infra/prover/backend.js';
import { UpstreamBackend } from './upstream-backend.js';

interface NativeBackendOptions {
  binary: string;
  port: number;
  args: readonly string[];
  keyDir: string;
  timeoutMs: number;
  /** Calls that may wait for a connection to the proof server (`prover.queueSize`). */
  maxQueue: number;
  readyTimeoutMs: number;
  stopGraceMs: number;
  logger: Logger;
  /** Base for a relative binary path. */
  cwd: string;
  /** Times the reuse of the proof server's `/proof-versions` answer. */
  clock?: Clock;
}

export class NativeBackend implements ProverBackend {
  readonly name = 'native' as const;
  readonly supervisor: ProofServerSupervisor;
  readonly #upstream: UpstreamBackend;

  private constructor(supervisor: ProofServerSupervisor, upstream: UpstreamBackend) {
    this.supervisor = supervisor;
    this.#upstream = upstream;
  }

  /** Locate the binary (failing start-up with an actionable message if it is unusable) and spawn it. */
  static async start(opts: NativeBackendOptions): Promise<NativeBackend> {
    const binary = locateProofServer(opts.binary, opts.cwd);
    const supervisor = new ProofServerSupervisor({
      binary,
      port: opts.port,
      args: opts.args,
      keyDir: opts.keyDir,
      readyTimeoutMs: opts.readyTimeoutMs,
      stopGraceMs: opts.stopGraceMs,
      logger: opts.logger,
    });
    await supervisor.start();
    return new NativeBackend(
      supervisor,
      new UpstreamBackend({
        url: supervisor.url,
        timeoutMs: opts.timeoutMs,
        maxQueue: opts.maxQueue,
        logger: opts.logger,
        name: 'native',
        ...(opts.clock ? { clock: opts.clock } : {}),
      }),
    );
  }

  #upstreamWhenReady(): UpstreamBackend {
    const s = this.supervisor.state;
    if (s !== 'ready') {
      throw new GatewayError(
        'PROVER_UNAVAILABLE',
        `The supervised midnight-proof-server is ${s === 'restarting' ? 'restarting after an exit' : s}; retry shortly`,
        { headers: { 'Retry-After': '5' } },
      );
    }
    return this.#upstream;
  }

  prove(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#upstreamWhenReady().prove(body, signal, opts);
  }

  check(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#upstreamWhenReady().check(body, signal, opts);
  }

  k(ir: Uint8Array, signal: AbortSignal): Promise<string> {
    return this.#upstreamWhenReady().k(ir, signal);
  }

  version(signal: AbortSignal): Promise<Relayed> {
    return this.#upstreamWhenReady().version(signal);
  }

  ready(signal: AbortSignal): Promise<Relayed> {
    return this.#upstreamWhenReady().ready(signal);
  }

  proofVersions(signal: AbortSignal): Promise<Relayed> {
    return this.#upstreamWhenReady().proofVersions(signal);
  }

  health(): ComponentHealth {
    const s = this.supervisor;
    const upstream = this.#upstream.health();
    return {
      ...upstream,
      status: s.state === 'ready' ? upstream.status : s.state === 'starting' ? 'starting' : 'down',
      process: { state: s.state, pid: s.pid ?? null, port: s.port, restarts: s.restarts, lastExit: s.lastExit ?? null },
    };
  }

  queue(): ProvingQueue {
    return this.#upstream.queue();
  }

  readiness(): Promise<string | undefined> {
    const s = this.supervisor.state;
    return s === 'ready' ? this.#upstream.readiness() : Promise.resolve(`midnight-proof-server ${s}`);
  }

  drain(): void {
    this.#upstream.drain();
  }

  async close(): Promise<void> {
    await this.#upstream.close();
    await this.supervisor.stop();
  }
}
