/**
 * Readiness probes of the proof servers, each reused for a few seconds: /readyz is public and
 * polled by every load balancer in front, and a probe goes upstream. A probe still running is
 * shared by every request that asks meanwhile.
 */
import type { Clock } from '../../core/clock.js';
import type { ProverBackend } from '../../infra/prover/backend.js';

const PROBE_REUSE_MS = 3_000;

export class ProbeCache {
  readonly #entries = new Map<ProverBackend, { at: number; result: Promise<string | undefined> }>();

  constructor(
    private readonly clock: Clock,
    private readonly reuseMs = PROBE_REUSE_MS,
  ) {}

  /** Why the backend cannot prove now, or undefined (see ProverBackend.readiness). */
  check(backend: ProverBackend): Promise<string | undefined> {
    if (!backend.readiness) return Promise.resolve(undefined);
    const now = this.clock.now();
    const e = this.#entries.get(backend);
    if (e && now - e.at < this.reuseMs) return e.result;
    const result = backend.readiness();
    this.#entries.set(backend, { at: now, result });
    return result;
  }
}
