/**
 * Indexer answers → response bodies of the lookup routes (schemas.ts). Pure functions: the
 * indexer's names and units in, the API's out (ms timestamps and Unix-second ctimes → ISO,
 * typenames → short kinds, fees labelled with their unit).
 */
import type { AddressTransactionEvent } from './address-activity.js';
import { feesOf, iso, ledgerOf, paidFee, transactionKind as kind } from './derive.js';
import type { UnshieldedAddress } from './params.js';
import { ctimeIso, type AddressActivity, type AddressUtxo, type BlockDetail, type ContractDetail, type TransactionDetail } from './schemas.js';
import type { BlockDetailData, ContractDetailData, TransactionDetailData } from './upstream-types.js';

type ActionTypename = 'ContractDeploy' | 'ContractCall' | 'ContractUpdate';
const ACTION: Record<ActionTypename, 'deploy' | 'call' | 'update'> = { ContractDeploy: 'deploy', ContractCall: 'call', ContractUpdate: 'update' };

/** A bridge claim's recipient and amount; the amount comes as a 16-byte big-endian u128 in hex. */
function bridgeClaim(t: { recipient?: string | undefined; amount?: string | undefined }): TransactionDetail['bridgeClaim'] {
  if (t.recipient === undefined || t.amount === undefined) return null;
  return { recipient: t.recipient, amount: BigInt(`0x${t.amount}`).toString() };
}

export function toBlockDetail(b: NonNullable<BlockDetailData['block']>): BlockDetail {
  return {
    height: b.height,
    hash: b.hash,
    parent: b.parent ? { height: b.parent.height, hash: b.parent.hash } : null,
    author: b.author,
    timestamp: iso(b.timestamp),
    protocolVersion: b.protocolVersion,
    ledger: ledgerOf(b.protocolVersion),
    zswapMerkleTreeRoot: b.zswapMerkleTreeRoot,
    zswapEndIndex: b.zswapEndIndex,
    systemParameters: {
      dParameter: {
        numPermissionedCandidates: b.systemParameters.dParameter.numPermissionedCandidates,
        numRegisteredCandidates: b.systemParameters.dParameter.numRegisteredCandidates,
      },
      termsAndConditions: b.systemParameters.termsAndConditions
        ? { hash: b.systemParameters.termsAndConditions.hash, url: b.systemParameters.termsAndConditions.url }
        : null,
    },
    transactionCount: b.transactions.length,
    transactions: b.transactions.map((t) => ({
      id: t.id,
      hash: t.hash,
      kind: kind(t.__typename),
      protocolVersion: t.protocolVersion,
      status: t.transactionResult?.status ?? null,
      identifiers: t.identifiers ?? [],
      fees: feesOf(t),
      contractActions: t.contractActions.map((a) => ({ type: ACTION[a.__typename], address: a.address })),
      unshieldedOutputsCreated: t.unshieldedCreatedOutputs.length,
      unshieldedOutputsSpent: t.unshieldedSpentOutputs.length,
    })),
  };
}

export function toTransactionDetail(t: TransactionDetailData['transactions'][number]): TransactionDetail {
  return {
    id: t.id,
    hash: t.hash,
    kind: kind(t.__typename),
    protocolVersion: t.protocolVersion,
    ledger: ledgerOf(t.protocolVersion),
    status: t.transactionResult?.status ?? null,
    segments: t.transactionResult?.segments?.map((s) => ({ id: s.id, success: s.success })) ?? null,
    block: { height: t.block.height, hash: t.block.hash, timestamp: iso(t.block.timestamp) },
    identifiers: t.identifiers ?? [],
    fees: feesOf(t),
    bridgeClaim: bridgeClaim(t),
    zswap:
      t.zswapMerkleTreeRoot !== undefined && t.zswapStartIndex !== undefined && t.zswapEndIndex !== undefined
        ? { merkleTreeRoot: t.zswapMerkleTreeRoot, startIndex: t.zswapStartIndex, endIndex: t.zswapEndIndex }
        : null,
    contractActions: t.contractActions.map((a) => ({
      type: ACTION[a.__typename],
      address: a.address,
      entryPoint: a.entryPoint ?? null,
      balances: a.unshieldedBalances.map((x) => ({ tokenType: x.tokenType, amount: x.amount })),
    })),
    utxos: {
      created: t.unshieldedCreatedOutputs.map((u) => ({
        owner: u.owner,
        tokenType: u.tokenType,
        value: u.value,
        intentHash: u.intentHash,
        outputIndex: u.outputIndex,
        createdAt: ctimeIso(u.ctime),
        ctime: u.ctime ?? null,
        registeredForDustGeneration: u.registeredForDustGeneration,
      })),
      spent: t.unshieldedSpentOutputs.map((u) => ({
        owner: u.owner,
        tokenType: u.tokenType,
        value: u.value,
        intentHash: u.intentHash,
        outputIndex: u.outputIndex,
        createdAt: ctimeIso(u.ctime),
        ctime: u.ctime ?? null,
        createdAtTransaction: u.createdAtTransaction.hash,
      })),
    },
    ledgerEvents: { zswap: t.zswapLedgerEvents.length, dust: t.dustLedgerEvents.length },
  };
}

export function toContractDetail(a: NonNullable<ContractDetailData['contractAction']>): ContractDetail {
  const tx = a.transaction;
  const deploy =
    a.__typename === 'ContractDeploy'
      ? { transactionHash: tx.hash, blockHeight: tx.block.height, timestamp: iso(tx.block.timestamp) }
      : a.deploy
        ? { transactionHash: a.deploy.transaction.hash, blockHeight: a.deploy.transaction.block.height, timestamp: iso(a.deploy.transaction.block.timestamp) }
        : null;
  return {
    address: a.address,
    latestAction: {
      type: ACTION[a.__typename],
      entryPoint: a.entryPoint ?? null,
      transaction: {
        id: tx.id,
        hash: tx.hash,
        status: tx.transactionResult?.status ?? null,
        identifiers: tx.identifiers ?? [],
        paidFees: paidFee(tx),
        paidFeesUnit: 'SPECK',
        block: { height: tx.block.height, hash: tx.block.hash, timestamp: iso(tx.block.timestamp) },
      },
    },
    balances: a.unshieldedBalances.map((x) => ({ tokenType: x.tokenType, amount: x.amount })),
    stateRoots: { zswapMerkleTreeRoot: tx.zswapMerkleTreeRoot ?? null },
    deploy,
  };
}

/**
 * Fold the address's transaction events (oldest first) into its activity: the newest `limit`
 * transactions, every unspent UTXO (what a wallet needs to build a spend), the spent UTXOs the
 * listed transactions created, and unspent balances per token type.
 */
export function toAddressActivity(address: UnshieldedAddress, events: readonly AddressTransactionEvent[], highest: number, limit: number): AddressActivity {
  const utxos = new Map<string, AddressUtxo & { txId: number }>();
  for (const ev of events) {
    const t = ev.transaction;
    for (const u of ev.createdUtxos) {
      const spentBy = u.spentAtTransaction?.hash ?? null;
      utxos.set(`${u.intentHash}:${u.outputIndex}`, {
        owner: u.owner,
        tokenType: u.tokenType,
        value: u.value,
        intentHash: u.intentHash,
        outputIndex: u.outputIndex,
        createdAt: ctimeIso(u.ctime),
        ctime: u.ctime ?? null,
        registeredForDustGeneration: u.registeredForDustGeneration,
        spent: spentBy !== null,
        spentAtTransaction: spentBy,
        createdAtTransaction: t.hash,
        createdAtHeight: t.block.height,
        txId: t.id,
      });
    }
    for (const u of ev.spentUtxos) {
      const known = utxos.get(`${u.intentHash}:${u.outputIndex}`);
      if (known && !known.spent) {
        known.spent = true;
        known.spentAtTransaction = t.hash;
      }
    }
  }
  const newest = [...events].sort((a, b) => b.transaction.id - a.transaction.id).slice(0, limit);
  const listed = new Set(newest.map((e) => e.transaction.id));
  const balances = new Map<string, bigint>();
  const out: AddressUtxo[] = [];
  for (const u of [...utxos.values()].sort((a, b) => b.txId - a.txId || b.outputIndex - a.outputIndex)) {
    if (!u.spent) balances.set(u.tokenType, (balances.get(u.tokenType) ?? 0n) + BigInt(u.value));
    if (u.spent && !listed.has(u.txId)) continue;
    const { txId: _txId, ...utxo } = u;
    out.push(utxo);
  }
  let highestSeen = highest;
  for (const e of events) highestSeen = Math.max(highestSeen, e.transaction.id);
  return {
    address: address.bech32,
    addressHex: address.hex,
    highestTransactionId: highestSeen,
    transactionCount: events.length,
    limit,
    transactions: newest.map((e) => ({
      id: e.transaction.id,
      hash: e.transaction.hash,
      blockHeight: e.transaction.block.height,
      timestamp: iso(e.transaction.block.timestamp),
      status: e.transaction.transactionResult?.status ?? null,
      utxosCreated: e.createdUtxos.length,
      utxosSpent: e.spentUtxos.length,
    })),
    balances: [...balances].map(([tokenType, unspent]) => ({ tokenType, unspent: unspent.toString() })).sort((a, b) => a.tokenType.localeCompare(b.tokenType)),
    utxos: out,
  };
}
