// `Block.contractZswapState(address)`: the chain's coin-commitment tree after the block, filtered to
// one contract (`ZswapChainState.filter`: that contract's commitments kept, every other leaf
// collapsed), as indexer 4.4 answers it from the block's ledger state. The indexer reloads that
// state; the devnet keeps, with each block record, the answers themselves:
//  - a contract that owns no commitment in the tree gets the tree with every leaf collapsed — the
//    same bytes for every such contract, so one copy serves them all;
//  - a contract that owns some (a `zswapOutput` ledger event named it) gets its own filtered tree.
// The trees change only when commitments are added, so a block that adds none and names no new
// owner shares its parent's value. A filtered tree is ≈ 1.6 KiB (measured on ledger 9 with 40 to
// 206 commitments: it grows with the tree's depth, not its size).
import type { ContractZswapTrees } from './indexer-records.js';
import { release, type L } from './ledger-kit.js';

/** No contract has it (an address is a hash): filtering to it collapses every leaf. */
const NO_CONTRACT = '0'.repeat(64);

function filtered(zswap: L.ZswapChainState, address: string): Uint8Array {
  const tree = zswap.filter(address);
  try {
    return tree.serialize();
  } finally {
    release(tree);
  }
}

/** The answers for every contract, from the chain's Zswap state after a block. */
export function contractZswapTrees(zswap: L.ZswapChainState, owners: Iterable<string>): ContractZswapTrees {
  const trees: ContractZswapTrees = { collapsed: filtered(zswap, NO_CONTRACT), owners: {} };
  for (const address of owners) if (address !== NO_CONTRACT) trees.owners[address] = filtered(zswap, address);
  return trees;
}

/** The answer for `address` (lower-case hex). */
export function contractZswapTree(trees: ContractZswapTrees, address: string): Uint8Array {
  return trees.owners[address] ?? trees.collapsed;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

/** Whether two blocks' answers are the same (a block read back from the log shares its parent's). */
export function sameTrees(a: ContractZswapTrees, b: ContractZswapTrees): boolean {
  const owners = Object.keys(a.owners);
  if (owners.length !== Object.keys(b.owners).length || !sameBytes(a.collapsed, b.collapsed)) return false;
  return owners.every((address) => {
    const other = b.owners[address];
    return other !== undefined && sameBytes(a.owners[address] as Uint8Array, other);
  });
}
