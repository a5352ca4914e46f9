// Contract events (indexer 4.4's `contractEvents`): what a ledger-9 contract logs (a `contractLog`
// ledger event: the `log` instruction of its transcript), typed by the logged item's event type and
// decoded from its data into the fields the schema names. Ledger 8 has no such event.
//
// The data is one cell holding one atom: the event's fields serialized one after the other, as
// Compact lays out a struct, with the atom's trailing zero bytes stripped (the ledger normalizes
// atoms). Decoding pads it back to the layout's full size; a cell of another shape, or an atom
// shorter than the layout allows, keeps the event with its fields empty (hex ""; an amount "0"; an
// optional field null), as indexer 4.4 does, rather than dropping it. Layouts, in bytes:
//   ShieldedSpend      nullifier 32
//   ShieldedReceive    commitment 32, ciphertext Maybe<Bytes<512>>, receivingContractAddress Maybe<32>
//   ShieldedMint       commitment 32, domainSep 32, amount Maybe<Uint<128>>
//   ShieldedBurn       nullifier 32, amount Maybe<Uint<128>>
//   UnshieldedSpend    sender Either 65, domainSep 32, tokenType 32, amount Uint<128>
//   UnshieldedReceive  recipient Either 65, domainSep 32, tokenType 32, amount Uint<128>
//   UnshieldedMint     domainSep 32, tokenType 32, amount Uint<128>
//   UnshieldedBurn     sender Either 65, tokenType 32, amount Uint<128>
//   Misc               name 32, payload 256
//   Paused, Unpaused   nothing
// A Maybe<T> is a tag byte (0: none) then T; an Either (user key or contract address) is a tag
// byte (non-zero: the user key) then both 32-byte slots; a Uint<128> is little-endian. The ledger
// names the types in kebab case ('shielded-spend', …, ledger 9's `LogEventType`); `L` is written
// against ledger 8's declarations, which have none of this, so the shapes are declared here.
import { GraphQLError } from 'graphql';
import type { AddressOrContractRecord, ContractEventFields, ContractEventRecord, ContractEventTypename } from './indexer-records.js';
import type { L } from './ledger-kit.js';
import { bytesToHex } from './keys.js';

/** The filter's event types (`ContractEventType`), the ledger's names for them, and the served types. */
const CONTRACT_EVENT_TYPES = {
  SHIELDED_SPEND: { ledger: 'shielded-spend', typename: 'ShieldedSpendEvent' },
  SHIELDED_RECEIVE: { ledger: 'shielded-receive', typename: 'ShieldedReceiveEvent' },
  SHIELDED_MINT: { ledger: 'shielded-mint', typename: 'ShieldedMintEvent' },
  SHIELDED_BURN: { ledger: 'shielded-burn', typename: 'ShieldedBurnEvent' },
  UNSHIELDED_SPEND: { ledger: 'unshielded-spend', typename: 'UnshieldedSpendEvent' },
  UNSHIELDED_RECEIVE: { ledger: 'unshielded-receive', typename: 'UnshieldedReceiveEvent' },
  UNSHIELDED_MINT: { ledger: 'unshielded-mint', typename: 'UnshieldedMintEvent' },
  UNSHIELDED_BURN: { ledger: 'unshielded-burn', typename: 'UnshieldedBurnEvent' },
  PAUSED: { ledger: 'paused', typename: 'PausedEvent' },
  UNPAUSED: { ledger: 'unpaused', typename: 'UnpausedEvent' },
  MISC: { ledger: 'misc', typename: 'MiscContractEvent' },
} as const satisfies Record<string, { ledger: string; typename: ContractEventTypename }>;

type ContractEventType = keyof typeof CONTRACT_EVENT_TYPES;

const TYPENAME_OF_LEDGER = new Map<string, ContractEventTypename>(Object.values(CONTRACT_EVENT_TYPES).map((t) => [t.ledger, t.typename]));

/** Each served type's own fields (beside those of the `ContractEvent` interface). */
export const CONTRACT_EVENT_FIELDS: Record<ContractEventTypename, readonly string[]> = {
  ShieldedSpendEvent: ['nullifier'],
  ShieldedReceiveEvent: ['commitment', 'ciphertext', 'receivingContractAddress'],
  ShieldedMintEvent: ['commitment', 'domainSep', 'amount'],
  ShieldedBurnEvent: ['nullifier', 'amount'],
  UnshieldedSpendEvent: ['sender', 'domainSep', 'tokenType', 'amount'],
  UnshieldedReceiveEvent: ['recipient', 'domainSep', 'tokenType', 'amount'],
  UnshieldedMintEvent: ['domainSep', 'tokenType', 'amount'],
  UnshieldedBurnEvent: ['sender', 'tokenType', 'amount'],
  PausedEvent: [],
  UnpausedEvent: [],
  MiscContractEvent: ['name', 'payload'],
};

/** The fields `fieldPrefixes` can name; each type indexes those of them it has (none for Misc, Paused, Unpaused). */
const INDEXED_FIELD_NAMES = ['nullifier', 'commitment', 'ciphertext', 'domainSep', 'tokenType', 'sender', 'recipient'] as const;

const BYTES = 32;
const U128 = 16;
const EITHER = 1 + 2 * BYTES;
const CIPHERTEXT = 512;

/** The data's one atom padded to `max` bytes; undefined when the data is not one atom of `min`..`max` bytes. */
function flatBytes(data: L.EncodedStateValue, min: number, max: number): Uint8Array | undefined {
  if (data.tag !== 'cell') return undefined;
  const atoms = (data as { content: L.AlignedValue }).content.value;
  if (atoms.length !== 1) return undefined;
  const atom = atoms[0] as Uint8Array;
  if (atom.length < min || atom.length > max) return undefined;
  const out = new Uint8Array(max);
  out.set(atom);
  return out;
}

function hexAt(bytes: Uint8Array | undefined, offset: number, length: number): string {
  return bytes ? bytesToHex(bytes.subarray(offset, offset + length)) : '';
}

function u128At(bytes: Uint8Array, offset: number): string {
  let value = 0n;
  for (let i = U128 - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[offset + i] as number);
  return value.toString();
}

function amountAt(bytes: Uint8Array | undefined, offset: number): string {
  return bytes ? u128At(bytes, offset) : '0';
}

function maybeHexAt(bytes: Uint8Array | undefined, offset: number, length: number): string | null {
  return bytes && bytes[offset] !== 0 ? hexAt(bytes, offset + 1, length) : null;
}

function maybeAmountAt(bytes: Uint8Array | undefined, offset: number): string | null {
  return bytes && bytes[offset] !== 0 ? u128At(bytes, offset + 1) : null;
}

function eitherAt(bytes: Uint8Array | undefined, offset: number): AddressOrContractRecord {
  if (!bytes) return { kind: 'USER', userAddress: '', contractAddress: null };
  return bytes[offset] !== 0
    ? { kind: 'USER', userAddress: hexAt(bytes, offset + 1, BYTES), contractAddress: null }
    : { kind: 'CONTRACT', userAddress: null, contractAddress: hexAt(bytes, offset + 1 + BYTES, BYTES) };
}

/** The type's fields from the logged data (see the header for the layouts). */
function decodeFields(typename: ContractEventTypename, data: L.EncodedStateValue): ContractEventFields {
  switch (typename) {
    case 'ShieldedSpendEvent': {
      const b = flatBytes(data, BYTES, BYTES);
      return { nullifier: hexAt(b, 0, BYTES) };
    }
    case 'ShieldedReceiveEvent': {
      // Stripping may take everything after the commitment.
      const b = flatBytes(data, BYTES, BYTES + 1 + CIPHERTEXT + 1 + BYTES);
      return {
        commitment: hexAt(b, 0, BYTES),
        ciphertext: maybeHexAt(b, BYTES, CIPHERTEXT),
        receivingContractAddress: maybeHexAt(b, BYTES + 1 + CIPHERTEXT, BYTES),
      };
    }
    case 'ShieldedMintEvent': {
      const b = flatBytes(data, 2 * BYTES, 2 * BYTES + 1 + U128);
      return { commitment: hexAt(b, 0, BYTES), domainSep: hexAt(b, BYTES, BYTES), amount: maybeAmountAt(b, 2 * BYTES) };
    }
    case 'ShieldedBurnEvent': {
      const b = flatBytes(data, BYTES, BYTES + 1 + U128);
      return { nullifier: hexAt(b, 0, BYTES), amount: maybeAmountAt(b, BYTES) };
    }
    case 'UnshieldedSpendEvent':
    case 'UnshieldedReceiveEvent': {
      // Only a zero amount may be stripped whole: a shorter atom is another layout.
      const size = EITHER + 2 * BYTES + U128;
      const b = flatBytes(data, size - U128, size);
      const party = typename === 'UnshieldedSpendEvent' ? 'sender' : 'recipient';
      return {
        [party]: eitherAt(b, 0),
        domainSep: hexAt(b, EITHER, BYTES),
        tokenType: hexAt(b, EITHER + BYTES, BYTES),
        amount: amountAt(b, EITHER + 2 * BYTES),
      };
    }
    case 'UnshieldedMintEvent': {
      const b = flatBytes(data, 2 * BYTES, 2 * BYTES + U128);
      return { domainSep: hexAt(b, 0, BYTES), tokenType: hexAt(b, BYTES, BYTES), amount: amountAt(b, 2 * BYTES) };
    }
    case 'UnshieldedBurnEvent': {
      const b = flatBytes(data, EITHER + BYTES, EITHER + BYTES + U128);
      return { sender: eitherAt(b, 0), tokenType: hexAt(b, EITHER, BYTES), amount: amountAt(b, EITHER + BYTES) };
    }
    case 'MiscContractEvent': {
      const b = flatBytes(data, BYTES, BYTES + 256);
      return { name: hexAt(b, 0, BYTES), payload: hexAt(b, BYTES, 256) };
    }
    case 'PausedEvent':
    case 'UnpausedEvent':
      return {};
  }
}

/** What a `contractLog` ledger event carries, as `Event.content` gives it. */
export interface ContractLogContent {
  address: string;
  entryPoint: Uint8Array | string;
  loggedItem: { version: number; eventType: string; data: L.EncodedStateValue };
}

/** A contract event's type, schema version and fields; undefined for an event type the schema has no type for. */
export function decodeContractLog(content: ContractLogContent): Pick<ContractEventRecord, 'typename' | 'version' | 'fields'> | undefined {
  const typename = TYPENAME_OF_LEDGER.get(content.loggedItem.eventType);
  if (!typename) return undefined;
  return { typename, version: content.loggedItem.version, fields: decodeFields(typename, content.loggedItem.data) };
}

/** The event's indexed fields and their values (hex); an absent optional field is not indexed. */
function indexedFields(e: ContractEventRecord): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of INDEXED_FIELD_NAMES) {
    const value = e.fields[name];
    if (value === undefined || value === null) continue;
    // An address is matched by its 32 bytes, whether a user's or a contract's.
    out.set(name, typeof value === 'string' ? value : (value.userAddress ?? value.contractAddress ?? ''));
  }
  return out;
}

/** `ContractEventFilter` as the schema takes it. */
export interface ContractEventFilterInput {
  contractAddress: string;
  types?: ContractEventType[] | null;
  fieldPrefixes?: Array<{ fieldName: string; prefix: string }> | null;
  fromBlock?: number | null;
  toBlock?: number | null;
  transactionHash?: string | null;
}

export interface ContractEventFilter {
  contractAddress: string;
  typenames: Set<ContractEventTypename> | undefined;
  prefixes: Array<{ fieldName: string; prefix: string }>;
  fromBlock: number | undefined;
  toBlock: number | undefined;
  transactionHash: string | undefined;
}

const HEX = /^(?:[0-9a-f]{2})*$/i;

function invalid(reason: string): GraphQLError {
  return new GraphQLError(`invalid contract event filter: ${reason}`);
}

/** The filter checked and normalized (lower-case hex), as indexer 4.4 checks it. */
export function contractEventFilter(input: ContractEventFilterInput): ContractEventFilter {
  if (!HEX.test(input.contractAddress)) throw invalid('invalid contractAddress');
  if (input.contractAddress === '') throw invalid('contractAddress must be non-empty');
  if (input.types && input.types.length === 0) throw invalid('types must not be empty');
  const prefixes = (input.fieldPrefixes ?? []).map(({ fieldName, prefix }) => {
    if (!(INDEXED_FIELD_NAMES as readonly string[]).includes(fieldName)) throw invalid(`unknown fieldPrefixes.fieldName ${fieldName}`);
    if (!HEX.test(prefix)) throw invalid('invalid fieldPrefixes.prefix');
    return { fieldName, prefix: prefix.toLowerCase() };
  });
  const { fromBlock, toBlock } = input;
  if (fromBlock !== undefined && fromBlock !== null && toBlock !== undefined && toBlock !== null && fromBlock > toBlock) {
    throw invalid(`fromBlock ${fromBlock} must not exceed toBlock ${toBlock}`);
  }
  if (input.transactionHash !== undefined && input.transactionHash !== null && !HEX.test(input.transactionHash)) throw invalid('invalid transactionHash');
  return {
    contractAddress: input.contractAddress.toLowerCase(),
    typenames: input.types ? new Set(input.types.map((t) => CONTRACT_EVENT_TYPES[t].typename)) : undefined,
    prefixes,
    fromBlock: fromBlock ?? undefined,
    toBlock: toBlock ?? undefined,
    transactionHash: input.transactionHash?.toLowerCase() ?? undefined,
  };
}

/** Whether the event passes the filter; `transactionHash` is the hash of the event's transaction. */
export function matchesFilter(e: ContractEventRecord, filter: ContractEventFilter, transactionHash: () => string | undefined): boolean {
  if (e.contractAddress !== filter.contractAddress) return false;
  if (filter.typenames && !filter.typenames.has(e.typename)) return false;
  if (filter.fromBlock !== undefined && e.blockHeight < filter.fromBlock) return false;
  if (filter.toBlock !== undefined && e.blockHeight > filter.toBlock) return false;
  if (filter.prefixes.length > 0) {
    const indexed = indexedFields(e);
    for (const { fieldName, prefix } of filter.prefixes) {
      const value = indexed.get(fieldName);
      if (value === undefined || !value.startsWith(prefix)) return false;
    }
  }
  return filter.transactionHash === undefined || transactionHash() === filter.transactionHash;
}
