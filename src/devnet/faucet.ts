// The faucet: NIGHT from the treasury to any address, paid out in the next block. Requests queue in
// arrival order; one treasury transaction per block pays at most FAUCET_PAYOUTS_PER_BLOCK of them,
// because its outputs may all be DUST-generating (a registered recipient plus the treasury's change)
// and the ledger allows about three such outputs per transaction.
import { parseUnshieldedAddress } from './address.js';
import { candidateOf, type Candidate } from './chain.js';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { NIGHT_TOKEN, STAR_PER_NIGHT, type L } from './ledger-kit.js';
import { buildFinalized, type BuildContext } from './tx-builder.js';
import type { Actor, DustWallet } from './wallet.js';

export const FAUCET_PAYOUTS_PER_BLOCK = 2;
export const FAUCET_MAX_STAR = 1_000_000n * STAR_PER_NIGHT;

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

export async function buildPayout(
  treasury: Actor,
  payer: DustWallet,
  requests: FaucetRequest[],
  state: L.LedgerState,
  ctx: BuildContext,
): Promise<Candidate> {
  const total = requests.reduce((sum, r) => sum + r.amount, 0n);
  const utxo = treasury.nightUtxos(state)[0];
  if (!utxo || utxo.value <= total) throw new Error('the treasury has no UTXO large enough for the payout');
  const outputs = requests.map((r) => ({ owner: r.address, type: NIGHT_TOKEN, value: r.amount }));
  outputs.push({ owner: treasury.address, type: NIGHT_TOKEN, value: utxo.value - total });
  const tx = await buildFinalized({ signer: treasury, payer, inputs: [utxo], outputs }, ctx);
  return candidateOf(tx, 'devnet');
}
