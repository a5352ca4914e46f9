/**
 * The server DUST wallets of one network as a value that crosses threads: ledger parameters plus
 * each wallet's serialized `DustLocalState`, and the ledger era they belong to. The sync thread
 * encodes it into the shared snapshot; balancing workers decode it into their replica (only when
 * its version changed).
 */
import { dustSeedOf, ledger, type Era, type L, type WalletKeys } from '../../../infra/ledger/index.js';
import { pack, unpack } from '../../../infra/pool/tasks.js';

interface WalletStateSnapshot {
  /**
   * The era of the wallets (from the protocol version of the events replayed into them). The
   * parameters may still be the previous era's for a moment after a switch: workers then refuse
   * to sponsor until both agree.
   */
  era: Era;
  /** Timestamp (ms) of the latest block the wallets or parameters are known at: the DUST spends' ctime. */
  chainTime: number;
  /** Serialized LedgerParameters at the tip the events were read up to. */
  params: Uint8Array;
  /** Timestamp (ms) of the block those parameters are the tip's of. */
  paramsAt: number;
  /** Serialized DustLocalState, one per server wallet, in wallet-index order. */
  wallets: Uint8Array[];
  /** Last DUST ledger event id replayed. */
  eventId: number;
}

export function encodeWalletState(s: WalletStateSnapshot): Uint8Array {
  return pack(s);
}

export function decodeWalletState(bytes: Uint8Array): WalletStateSnapshot {
  return unpack<WalletStateSnapshot>(bytes);
}

/**
 * The allocator table stores 64-bit values, but a DUST UTXO can hold more than 2^64 SPECK
 * (5 000 DUST = 5·10^18; values above 18 446 DUST overflow). The table therefore counts in
 * units of 10^6 SPECK: UTXO values round down and fees round up, so a reservation always covers
 * its fee. Fees are ~10^14–10^15 SPECK, so the rounding is far below one fee.
 */
const TABLE_UNIT = 1_000_000n;
const U64_MAX = (1n << 64n) - 1n;

export function valueToTableUnits(speck: bigint): bigint {
  const units = speck / TABLE_UNIT;
  return units > U64_MAX ? U64_MAX : units;
}

export function feeToTableUnits(speck: bigint): bigint {
  return (speck + TABLE_UNIT - 1n) / TABLE_UNIT;
}

/** The allocator's 64-bit key of a DUST UTXO: the low 64 bits of its nonce (unique per wallet in practice). */
export function utxoKey(nonce: bigint): bigint {
  return nonce & 0xffff_ffff_ffff_ffffn;
}

/** Current value of a UTXO (DUST generation grows it until the cap, and decays it after the backing NIGHT is spent). */
export function utxoValue(era: Era, state: L.DustLocalState, qdo: L.QualifiedDustOutput, now: Date, params: L.DustParameters): bigint {
  const gen = state.generationInfo(qdo);
  return gen ? ledger(era).updatedValue(qdo.ctime, qdo.initialValue, gen, now, params) : qdo.initialValue;
}

/** The DUST secret key of a server wallet (`WalletKeys`, packages/ledger/src/wallet-keys.ts). */
export function dustSecretKey(era: Era, wallet: WalletKeys): L.DustSecretKey {
  return ledger(era).DustSecretKey.fromSeed(Buffer.from(dustSeedOf(wallet), 'hex'));
}
