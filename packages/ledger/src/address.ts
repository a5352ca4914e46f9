// Unshielded addresses as the indexer shows them: Bech32m with the `mn_addr` prefix and the
// network id as suffix (`mn_addr_undeployed1…`; mainnet has no suffix), over the 32-byte address
// that ledger-v8 renders as 64 hex characters.
import { bech32mDecode, bech32mEncode } from './bech32m.js';
import { compactEncode } from './scale.js';

const ADDRESS_BYTES = 32;
const HEX_ADDRESS = /^[0-9a-f]{64}$/;

function hrpFor(networkId: string): string {
  return networkId === 'mainnet' ? 'mn_addr' : `mn_addr_${networkId}`;
}

export function encodeUnshieldedAddress(hexAddress: string, networkId: string): string {
  return bech32mEncode(hrpFor(networkId), Buffer.from(hexAddress, 'hex'));
}

/**
 * A DUST address as Midnight's wallets show it (`mn_dust_preview1…`): Bech32m over the SCALE
 * compact encoding of the DUST public key, which is where NIGHT's holder registers its DUST to go.
 */
export function encodeDustAddress(publicKey: bigint, networkId: string): string {
  return bech32mEncode(networkId === 'mainnet' ? 'mn_dust' : `mn_dust_${networkId}`, compactEncode(publicKey));
}

/**
 * Accepts a 64-hex ledger address or any `mn_addr…` Bech32m address. The network suffix is not
 * enforced: the embedded networks are labelled mainnet/preprod/preview while their ledger id is
 * usually `undeployed`, and wallets encode with the label they were configured with.
 */
export function parseUnshieldedAddress(text: string): string {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (HEX_ADDRESS.test(lower)) return lower;
  const decoded = bech32mDecode(trimmed);
  if (!decoded) throw new Error('not a hex address and not a valid Bech32m address (BIP-350)');
  const { hrp, bytes } = decoded;
  if (hrp !== 'mn_addr' && !hrp.startsWith('mn_addr_')) throw new Error(`expected an mn_addr address, got prefix '${hrp}'`);
  if (bytes.length !== ADDRESS_BYTES) throw new Error(`an unshielded address has ${ADDRESS_BYTES} bytes, got ${bytes.length}`);
  return Buffer.from(bytes).toString('hex');
}
