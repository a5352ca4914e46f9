/**
 * Inputs more than one scenario needs, each built once on first use: the summary the baselines
 * serve, the proof-server bodies, the lookup keys, and a temporary directory removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil, request } from './http.js';
import { discoverLookupKeys, type LookupKeys } from './lookup-keys.js';
import { buildProvingPayloads, type ProvingPayloads } from './proving-payloads.js';
import type { Target } from './types.js';
import { captureSummary, writeFixture, type SummaryFixture } from './summary-fixture.js';

export class SharedFixtures {
  readonly tempDir = mkdtempSync(join(tmpdir(), 'nightgate-bench-'));
  readonly #target: Target;
  #summary?: Promise<{ fixture: SummaryFixture; file: string }>;
  #proving?: Promise<ProvingPayloads>;
  #keys?: Promise<LookupKeys>;
  #statsReady?: Promise<number>;

  constructor(target: Target) {
    this.#target = target;
  }

  summary(): Promise<{ fixture: SummaryFixture; file: string }> {
    return (this.#summary ??= captureSummary(this.#target.baseUrl, this.#target.network).then((fixture) => ({
      fixture,
      file: writeFixture(fixture, this.tempDir),
    })));
  }

  proving(): Promise<ProvingPayloads> {
    const networkId = this.#target.devnet.get(this.#target.network)?.networkId;
    return (this.#proving ??= buildProvingPayloads(networkId));
  }

  lookupKeys(): Promise<LookupKeys> {
    return (this.#keys ??= discoverLookupKeys(this.#target));
  }

  /**
   * Waits (bounded) until the statistics routes have data — 503 means the chain follower has not
   * received anything yet — and resolves to the summary route's status then.
   */
  statsReady(timeoutMs = 60_000): Promise<number> {
    const url = `${this.#target.baseUrl}/api/v1/${this.#target.network}/summary`;
    return (this.#statsReady ??= pollUntil(
      async () => {
        const { status } = await request(url);
        return status === 503 ? undefined : status;
      },
      { timeoutMs, intervalMs: 250 },
    ).then((status) => status ?? 503));
  }

  cleanup(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}
