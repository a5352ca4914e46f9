// The faucet requests a network has accepted and not paid yet (faucet.ts): each block pays from the
// head of the queue, and a request leaves it only once its payout is on chain.
import type { DevnetActors } from './actors.js';
import type { ProducedBlock } from './chain.js';
import { reasonOf } from './errors.js';
import { buildPayouts, FAUCET_PAYOUTS_PER_BLOCK, parseFaucetRequest, type FaucetRequest, type Payout } from './faucet.js';
import type { L } from './ledger-kit.js';
import type { DevnetLogger } from './logger.js';
import type { BuildContext } from './tx-builder.js';

export class FaucetQueue {
  readonly #requests: FaucetRequest[] = [];
  readonly #network: string;
  readonly #log: DevnetLogger;

  constructor(network: string, log: DevnetLogger) {
    this.#network = network;
    this.#log = log;
  }

  get length(): number {
    return this.#requests.length;
  }

  /** Queues the request a `/faucet` body makes; answers what `/faucet` answers. */
  add(body: unknown): { accepted: true; address: string; amount: string; queued: number } {
    const request = parseFaucetRequest(body);
    this.#requests.push(request);
    return { accepted: true, address: request.address, amount: request.amount.toString(), queued: this.#requests.length };
  }

  /** The treasury transactions paying the head of the queue in the next block; none when they cannot be built (logged). */
  async payouts(actors: DevnetActors, state: L.LedgerState, ctx: BuildContext): Promise<Payout[]> {
    const requests = this.#requests.slice(0, FAUCET_PAYOUTS_PER_BLOCK);
    if (requests.length === 0) return [];
    try {
      const payouts = await buildPayouts(actors.treasury, actors.dust, requests, state, ctx);
      if (payouts.length === 0)
        this.#log.error({ network: this.#network, amount: String(requests[0]?.amount) }, 'the treasury cannot pay the next faucet request');
      return payouts;
    } catch (err) {
      this.#log.error({ network: this.#network, err: reasonOf(err), requests: requests.length }, 'faucet payout failed');
      return [];
    }
  }

  /**
   * Removes the requests `block` paid. Requests leave the queue only once paid; the chain keeps
   * payouts in order, so the paid ones are a prefix of the queue and the rest stay at its head for
   * the next block.
   */
  settle(block: ProducedBlock, payouts: Payout[]): void {
    const paid = new Set(block.applied.filter((a) => a.candidate.origin === 'faucet' && a.result.type === 'success').map((a) => a.candidate));
    this.#requests.splice(
      0,
      payouts.filter((p) => paid.has(p.candidate)).reduce((n, p) => n + p.requests.length, 0),
    );
  }
}
