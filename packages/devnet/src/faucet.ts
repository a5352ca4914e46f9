// The faucet: NIGHT from the treasury to any address, paid in arrival order from the next block on.
// Each block takes up to FAUCET_PAYOUTS_PER_BLOCK requests from the head of the queue and pays them
// in treasury transactions of up to FAUCET_PAYOUTS_PER_TX outputs, each spending its own treasury
// UTXO (the treasury holds OUTPUTS_PER_REGISTRATION of them from genesis; change returns to it).
//
// Limits measured on ledger-v8 8.1.0 (initial parameters):
// - The guaranteed section may take at most 15 ms to dismiss: beside the DUST fee that is 4 NIGHT
//   outputs, registered recipients or not. So the payouts go in the intent's fallible section,
//   which that limit does not cover; the fee stays guaranteed.
// - Each NIGHT output costs ≈ 1.45 % of a block's `bytesChurned` (normalizeFullness), a payout
//   transaction ≈ 1.7 % beside its outputs: a block holds 66 payouts at most (one transaction of 66
//   and its change: 98.7 %). Three transactions of 20 take 96.2 % of an otherwise empty block.
// Submitted transactions go into a block first; a payout that does not fit waits for the next block
// with the requests behind it (chain.ts keeps faucet candidates in order).
import { parseUnshieldedAddress } from '@nightgate/ledger/address';
import { candidateOf, type Candidate } from './chain.js';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { OUTPUTS_PER_REGISTRATION } from './genesis.js';
import { NIGHT_TOKEN, STAR_PER_NIGHT, type L } from './ledger-kit.js';
import { buildFinalized, type BuildContext } from './tx-builder.js';
import type { Actor, DustWallet } from './wallet.js';

const FAUCET_PAYOUTS_PER_TX = 20;
export const FAUCET_PAYOUTS_PER_BLOCK = FAUCET_PAYOUTS_PER_TX * OUTPUTS_PER_REGISTRATION;
const FAUCET_MAX_STAR = 1_000_000n * STAR_PER_NIGHT;

export interface FaucetRequest {
  /** 64-hex ledger address. */
  address: string;
  amount: bigint;
}

const DECIMAL = /^[0-9]{1,30}$/;

/** Validates a `POST /faucet` body: `{ address, amount }`, amount in STAR (decimal string or safe integer). */
export function parseFaucetRequest(body: unknown): FaucetRequest {
  const { address, amount } = (body ?? {}) as { address?: unknown; amount?: unknown };
  if (typeof address !== 'string') throw new DevnetError(DevnetErrorCode.FAUCET_BAD_ADDRESS, 400, 'address must be a string');
  let hex: string;
  try {
    hex = parseUnshieldedAddress(address);
  } catch (err) {
    throw new DevnetError(DevnetErrorCode.FAUCET_BAD_ADDRESS, 400, `invalid unshielded address: ${reasonOf(err)}`);
  }
  let star: bigint;
  if (typeof amount === 'string' && DECIMAL.test(amount)) star = BigInt(amount);
  else if (typeof amount === 'number' && Number.isSafeInteger(amount)) star = BigInt(amount);
  else throw new DevnetError(DevnetErrorCode.FAUCET_BAD_AMOUNT, 400, 'amount must be a whole number of STAR (decimal string or safe integer)');
  if (star <= 0n || star > FAUCET_MAX_STAR) {
    throw new DevnetError(DevnetErrorCode.FAUCET_BAD_AMOUNT, 400, `amount must be between 1 and ${FAUCET_MAX_STAR} STAR`);
  }
  return { address: hex, amount: star };
}

export interface Payout {
  candidate: Candidate;
  /** The requests it pays, in queue order. */
  requests: FaucetRequest[];
}

/**
 * Treasury transactions paying `requests` in order, one per treasury UTXO (largest first), each
 * with up to FAUCET_PAYOUTS_PER_TX payouts and the change back to the treasury. Requests beyond
 * what the treasury's UTXOs can pay are left out: the caller keeps them queued.
 */
export async function buildPayouts(treasury: Actor, payer: DustWallet, requests: FaucetRequest[], state: L.LedgerState, ctx: BuildContext): Promise<Payout[]> {
  const payouts: Payout[] = [];
  let next = 0;
  for (const utxo of treasury.nightUtxos(state)) {
    if (next >= requests.length) break;
    const chunk = requests.slice(next, next + FAUCET_PAYOUTS_PER_TX);
    const total = chunk.reduce((sum, r) => sum + r.amount, 0n);
    if (utxo.value <= total) break;
    const outputs = chunk.map((r) => ({ owner: r.address, type: NIGHT_TOKEN, value: r.amount }));
    outputs.push({ owner: treasury.address, type: NIGHT_TOKEN, value: utxo.value - total });
    const tx = await buildFinalized({ signer: treasury, payer, inputs: [utxo], outputs, section: 'fallible' }, ctx);
    payouts.push({ candidate: candidateOf(tx, 'faucet'), requests: chunk });
    next += chunk.length;
  }
  return payouts;
}
