/**
 * The same bytes from the same key within `dust.dedupeWindowMs` get the same answer and no second
 * DUST UTXO (docs/sponsorship.md, "What happens to a request"): from this instance's cache of answers, from the
 * computation already in flight here, or, with several instances, from the answer another one
 * recorded.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../../core/clock.js';
import type { NetworkName } from '../../../core/config/index.js';
import type { Era } from '../../../infra/ledger/index.js';
import { ResultCache } from '../../../core/result-cache.js';
import { SingleFlight } from '../../../core/single-flight.js';
import type { SponsorshipSharing } from './sharing.js';
import type { SponsorKind } from '../common/balance-task.js';

export interface SponsorAnswer {
  /** The JSON body, pre-serialized (the same bytes for a deduplicated repeat). */
  body: string;
  deduplicated: boolean;
}

/**
 * What makes two requests the same. Per key: each key's budget pays for what it gets, and one
 * key's answer is never another's. Per era: an answer given before the network changed era spends
 * a DUST UTXO of the era it left (marked SPENT since); the same bytes sent after it are answered
 * afresh (refused).
 */
export function requestKey(keyId: string, kind: SponsorKind, network: NetworkName, era: Era | undefined, body: Buffer): string {
  return `${keyId}|${kind}|${network}|${era}|${createHash('sha256').update(body).digest('hex')}`;
}

export class AnswerDedupe {
  private readonly answers: ResultCache;
  private readonly flights = new SingleFlight<string>();

  constructor(
    clock: Clock,
    windowMs: number,
    private readonly sharing: SponsorshipSharing | undefined,
  ) {
    this.answers = new ResultCache(clock, windowMs, 32 * 1024 * 1024);
  }

  /** Computations in flight. */
  get size(): number {
    return this.flights.size;
  }

  /** The answer for `key`: a recorded one, the one in flight, or the one `compute` gives. */
  async answer(key: string, signal: AbortSignal, compute: (signal: AbortSignal) => Promise<string>): Promise<SponsorAnswer> {
    const cached = this.answers.get(key);
    if (cached) return { body: Buffer.from(cached).toString('utf8'), deduplicated: true };
    const sharing = this.sharing;
    if (sharing && !this.flights.has(key)) {
      const remote = await sharing.lookup(key, signal);
      if (remote !== undefined) return { body: remote, deduplicated: true };
    }
    const { shared, result } = this.flights.run(key, compute, signal);
    try {
      return { body: await result, deduplicated: shared };
    } catch (err) {
      sharing?.abandoned(key);
      throw err;
    }
  }

  /** Keeps an answer for repeats, here and on the other instances. */
  record(key: string, json: string): void {
    this.answers.set(key, Buffer.from(json));
    this.sharing?.answered(key, json);
  }
}
