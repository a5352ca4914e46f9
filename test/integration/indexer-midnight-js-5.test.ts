// Midnight.js 5's indexer public data provider (the client contracts and DApps read a chain with),
// unmodified, against the embedded devnet's indexer API: every query, watch and observable it
// offers, each answer checked against the devnet's own chain — the contract's actions and states
// as the devnet indexed them, the commitment tree filtered to the contract as the chain's ledger
// state gives it after each block, the events the contract logged. The contract is a counter that
// also logs events (test/fixtures/devnet/event-contract.ts); blocks come from produceBlock() only.
// Midnight.js 5 needs Node 22.12 or later and is installed apart (test/helpers/midnight-js-5.ts), so
// this runs in the Node 22/24 lane (.ci/trixie-tests); elsewhere it is skipped, saying why.
import t from 'tap';
import type { ContractEvent, ContractStateObservableConfig, Observable } from '../midnight-js-5/indexer-provider.js';
import type { BlockRecord, ContractActionRecord } from '../../packages/devnet/src/indexer-records.js';
import { bytesToHex } from '../../packages/devnet/src/keys.js';
import { release } from '../../packages/devnet/src/ledger-kit.js';
import { concat, EventContract, filled, le, LOG_TYPE } from '../fixtures/devnet/event-contract.js';
import { startNetwork, type Harness } from '../fixtures/devnet/harness.js';
import { midnightJs5Skip } from '../helpers/midnight-js-5.js';

const skip = midnightJs5Skip();

/** Bounds every wait on the provider: a field the devnet got wrong fails here, not at the file's timeout. */
const WAIT_MS = 20_000;

function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

/** The first `n` values (fewer if it completes first), then unsubscribes. */
function firstValues<T>(what: string, source: Observable<T>, n: number): Promise<T[]> {
  return within(
    what,
    new Promise<T[]>((resolve, reject) => {
      const out: T[] = [];
      let settled = false;
      let subscription: { unsubscribe(): void } | undefined;
      const settle = (): void => {
        settled = true;
        subscription?.unsubscribe();
        resolve(out);
      };
      subscription = source.subscribe({
        next: (value) => {
          if (settled) return;
          out.push(value);
          if (out.length === n) settle();
        },
        error: (err) => {
          settled = true;
          reject(err);
        },
        complete: () => {
          if (!settled) settle();
        },
      });
      if (settled) subscription.unsubscribe();
    }),
  );
}

const hex = (bytes: Uint8Array): string => bytesToHex(bytes);
const stateHex = (state: { serialize(): Uint8Array } | null): string | null => (state ? hex(state.serialize()) : null);

/** The chain's own commitment tree filtered to `address`, now. */
function chainTree(h: Harness, address: string): string {
  const zswap = h.network.context().zswapState();
  const tree = zswap.filter(address);
  try {
    return hex(tree.serialize());
  } finally {
    release(tree, zswap);
  }
}

t.test('Midnight.js 5 reads the devnet through its indexer public data provider', { skip }, async (t) => {
  const { indexerPublicDataProvider, getAllContractEvents } = await import('../midnight-js-5/indexer-provider.js');
  const h = await startNetwork({ ledger: 9 });
  t.teardown(() => h.close());
  const store = h.network.store;
  /** The chain's tree filtered to the contract after each block, as the blocks are produced. */
  const trees = new Map<number, string>();
  let address = '';
  const produce = async (): Promise<BlockRecord> => {
    const b = await h.network.produceBlock();
    if (address) trees.set(b.height, chainTree(h, address));
    return b;
  };

  await produce();
  const deployed = await EventContract.deploy(h);
  const contract = deployed.contract;
  address = contract.address;
  const deployBlock = await produce();
  await produce();
  await produce();
  const logged = [
    { type: LOG_TYPE.misc, version: 1, data: concat(filled(0x6e), [0xca, 0xfe]) },
    { type: LOG_TYPE.unshieldedMint, version: 2, data: concat(filled(0xd5), filled(0x7e), le(1_000_000n, 16)) },
    { type: LOG_TYPE.shieldedSpend, version: 1, data: filled(0x5e) },
  ];
  const emitted = await contract.emit(logged);
  const emitBlock = await produce();
  const latest = store.latestBlock!;
  t.equal(latest.height, emitBlock.height);

  // The devnet's own view, which every answer is checked against.
  const actions = store.contractActionIds(address).map((id) => store.contractAction(id)!);
  const heightOf = (a: ContractActionRecord): number => store.transaction(a.transactionId)!.blockHeight;
  const stateAt = (height: number): string | null => actions.filter((a) => heightOf(a) <= height).at(-1)?.state ?? null;
  const deployAction = actions[0]!;
  const emitAction = actions.find((a) => a.entryPoint === 'emit')!;
  t.equal(deployAction.typename, 'ContractDeploy');
  t.equal(heightOf(emitAction), emitBlock.height, 'the emit call is in the latest block');
  t.ok(actions.length >= 2, `the contract has ${actions.length} actions`);
  const balances = (a: ContractActionRecord) => a.balances.map((b) => ({ balance: BigInt(b.amount), tokenType: b.tokenType }));

  const provider = indexerPublicDataProvider({ queryURL: h.info.graphqlUrl, subscriptionURL: h.info.graphqlWsUrl, pollInterval: 100 });
  t.teardown(() => provider.dispose());
  const atDeploy = { type: 'blockHeight', blockHeight: deployBlock.height } as const;
  const atDeployHash = { type: 'blockHash', blockHash: deployBlock.hash } as const;

  t.test('queryBlock', async (t) => {
    t.strictSame(await provider.queryBlock(), { hash: latest.hash, height: latest.height });
    t.strictSame(await provider.queryBlock(atDeploy), { hash: deployBlock.hash, height: deployBlock.height });
    t.strictSame(await provider.queryBlock(atDeployHash), { hash: deployBlock.hash, height: deployBlock.height });
    t.equal(await provider.queryBlock({ type: 'blockHeight', blockHeight: latest.height + 100 }), null);
  });

  t.test('queryContractState, at the tip and as of a block', async (t) => {
    t.equal(stateHex(await provider.queryContractState(address)), stateAt(latest.height));
    t.equal(stateHex(await provider.queryContractState(address, atDeploy)), deployAction.state);
    t.equal(stateHex(await provider.queryContractState(address, atDeployHash)), deployAction.state);
    t.equal(await provider.queryContractState(address, { type: 'blockHeight', blockHeight: deployBlock.height - 1 }), null, 'null before the deploy');
    t.equal(await provider.queryContractState('ef'.repeat(32)), null, 'null for an address with no contract');
  });

  t.test('queryZSwapAndContractState: the tree filtered to the contract, its state and the parameters at one block', async (t) => {
    const tip = await provider.queryZSwapAndContractState(address);
    t.ok(tip, 'answered');
    const [zswap, state, params] = tip!;
    t.equal(hex(zswap.serialize()), chainTree(h, address), "the chain's ledger state, filtered to the contract (ZswapChainState.filter)");
    t.equal(hex(zswap.serialize()), trees.get(latest.height));
    t.equal(stateHex(state), stateAt(latest.height));
    t.equal(hex(params.serialize()), latest.ledgerParameters);
    for (const height of [...trees.keys()].filter((x) => x >= deployBlock.height)) {
      const at = await provider.queryZSwapAndContractState(address, { type: 'blockHeight', blockHeight: height });
      t.equal(hex(at![0].serialize()), trees.get(height), `height ${height}: the tree after that block`);
      t.equal(stateHex(at![1]), stateAt(height), `height ${height}: the state as of that block`);
      t.equal(hex(at![2].serialize()), store.block(height)!.ledgerParameters);
    }
    const byHash = await provider.queryZSwapAndContractState(address, atDeployHash);
    t.equal(hex(byHash![0].serialize()), trees.get(deployBlock.height), 'by block hash');
    t.equal(await provider.queryZSwapAndContractState(address, { type: 'blockHeight', blockHeight: deployBlock.height - 1 }), null, 'null before the deploy');
  });

  t.test("queryDeployContractState and the deploy's transaction", async (t) => {
    t.equal(stateHex(await provider.queryDeployContractState(address)), deployAction.state);
    const tx = store.transaction(deployAction.transactionId)!;
    const data = await within('watchForDeployTxData', provider.watchForDeployTxData(address));
    t.match(data, {
      status: 'SucceedEntirely',
      txId: tx.identifiers[0],
      identifiers: tx.identifiers,
      txHash: deployed.hash,
      blockHeight: deployBlock.height,
      blockHash: deployBlock.hash,
      blockTimestamp: deployBlock.timestamp,
      blockAuthor: deployBlock.author,
      indexerId: tx.id,
      protocolVersion: tx.protocolVersion,
      fees: { paidFees: tx.fee, estimatedFees: tx.fee },
      unshielded: { created: [], spent: [] },
    });
    t.equal(data.segmentStatusMap, undefined);
    t.equal(hex(data.tx.serialize()), hex(tx.raw), 'the transaction itself');
  });

  t.test("watchForTxData: the emit call's transaction", async (t) => {
    const tx = store.transactionsByHash(emitted.hash)[0]!;
    const data = await within('watchForTxData', provider.watchForTxData(emitted.identifiers[0]!));
    t.match(data, {
      status: 'SucceedEntirely',
      txId: emitted.identifiers[0],
      identifiers: emitted.identifiers,
      txHash: emitted.hash,
      blockHeight: emitBlock.height,
      blockHash: emitBlock.hash,
      blockTimestamp: emitBlock.timestamp,
      blockAuthor: emitBlock.author,
      indexerId: tx.id,
      fees: { paidFees: tx.fee },
    });
    t.equal(hex(data.tx.serialize()), hex(tx.raw));
  });

  t.test('watchForContractState and the unshielded balances', async (t) => {
    t.equal(stateHex(await within('watchForContractState', provider.watchForContractState(address))), stateAt(latest.height));
    const last = actions.at(-1)!;
    // The contract holds no unshielded tokens: what the devnet indexed is an empty list, as served.
    t.strictSame(await provider.queryUnshieldedBalances(address), balances(last));
    t.strictSame(await provider.queryUnshieldedBalances(address, atDeploy), balances(deployAction));
    t.equal(await provider.queryUnshieldedBalances('ef'.repeat(32)), null);
    t.strictSame(await within('watchForUnshieldedBalances', provider.watchForUnshieldedBalances(address)), balances(last));
    for (const config of [undefined, { type: 'all' } as const, atDeploy]) {
      const [first] = await firstValues(`unshieldedBalancesObservable ${config?.type ?? 'latest'}`, provider.unshieldedBalancesObservable(address, config), 1);
      t.strictSame(first, balances(last), `unshieldedBalancesObservable(${config?.type ?? 'latest'})`);
    }
    t.throws(() => provider.unshieldedBalancesObservable(address, { type: 'txId', txId: emitted.identifiers[0]! }), { name: 'IndexerProviderConfigError' });
  });

  t.test('contractStateObservable, every configuration', async (t) => {
    const states = (what: string, config: ContractStateObservableConfig, n: number) =>
      firstValues(what, provider.contractStateObservable(address, config), n).then((v) => v.map(stateHex));
    const inLatest = actions.filter((a) => heightOf(a) === latest.height).map((a) => a.state);
    t.strictSame(await states('latest', { type: 'latest' }, inLatest.length), inLatest, 'latest: the states of the latest block that touched it');
    t.strictSame(await states('all', { type: 'all' }, inLatest.length), inLatest, 'all: from the latest block on');
    const fromDeploy = actions.map((a) => a.state);
    t.strictSame(await states('blockHeight', atDeploy, fromDeploy.length), fromDeploy, 'blockHeight: every state from that block on');
    t.strictSame(await states('blockHash', atDeployHash, fromDeploy.length), fromDeploy, 'blockHash');
    const afterDeploy = actions.filter((a) => heightOf(a) > deployBlock.height).map((a) => a.state);
    t.strictSame(
      await states('blockHeight, exclusive', { ...atDeploy, inclusive: false }, afterDeploy.length),
      afterDeploy,
      'not inclusive: from the next block',
    );
    t.strictSame(await states('txId', { type: 'txId', txId: emitted.identifiers[0]! }, 1), [emitAction.state], 'txId: the state that transaction left');
  });

  t.test('contract events: queried, filtered, paged, iterated and followed', async (t) => {
    const all = await provider.queryContractEvents({ contractAddress: address });
    const txId = store.transactionsByHash(emitted.hash)[0]!.id;
    const base = { maxId: 3, contractAddress: address, transactionId: txId };
    t.match(all, [
      { eventType: 'Misc', id: 1, version: 1, ...base, name: '6e'.repeat(32), payload: 'cafe' + '00'.repeat(254) },
      { eventType: 'UnshieldedMint', id: 2, version: 2, ...base, domainSep: 'd5'.repeat(32), tokenType: '7e'.repeat(32), amount: '1000000' },
      { eventType: 'ShieldedSpend', id: 3, version: 1, ...base, nullifier: '5e'.repeat(32) },
    ]);
    t.equal(all.length, 3);
    const eventsOf = (tx: { contractEvents?: Array<{ raw: Uint8Array }> } | undefined) => (tx?.contractEvents ?? []).map((e) => hex(e.raw));
    t.strictSame(
      all.map((e: ContractEvent) => e.raw),
      eventsOf(store.transaction(txId)),
      "raw: the ledger's events, as indexed",
    );
    const ids = (events: ContractEvent[]) => events.map((e) => e.id);
    t.strictSame(ids(await provider.queryContractEvents({ contractAddress: address, types: ['UnshieldedMint', 'ShieldedSpend'] })), [2, 3], 'by type');
    t.strictSame(
      ids(
        await provider.queryContractEvents({
          contractAddress: address,
          types: ['UnshieldedMint'],
          fieldPrefixes: [{ fieldName: 'tokenType', prefix: '7e7e' }],
        }),
      ),
      [2],
      'by a field prefix',
    );
    t.strictSame(ids(await provider.queryContractEvents({ contractAddress: address, transactionHash: emitted.hash })), [1, 2, 3], 'by transaction');
    t.strictSame(ids(await provider.queryContractEvents({ contractAddress: address, fromBlock: emitBlock.height + 1 })), [], 'after its block');
    t.strictSame(ids(await provider.queryContractEvents({ contractAddress: address, toBlock: emitBlock.height }, { limit: 1, offset: 1 })), [2], 'paged');
    const iterated: number[] = [];
    for await (const e of getAllContractEvents(provider, { contractAddress: address })) iterated.push(e.id);
    t.strictSame(iterated, [1, 2, 3], 'getAllContractEvents');
    const followed = await firstValues(
      'contractEventsObservable',
      provider.contractEventsObservable({ contractAddress: address }, { startAt: { fromId: 2 } }),
      2,
    );
    t.strictSame(ids(followed), [2, 3], 'contractEventsObservable from an id');
    const bounded = await firstValues(
      'contractEventsObservable to a block',
      provider.contractEventsObservable({ contractAddress: address, toBlock: emitBlock.height }),
      100,
    );
    t.strictSame(ids(bounded), [1, 2, 3], 'with toBlock reached: every event, then complete');
    const fromBlock = await firstValues(
      'contractEventsObservable from a block',
      provider.contractEventsObservable({ contractAddress: address, types: ['Misc'] }, { startAt: { fromBlock: emitBlock.height } }),
      1,
    );
    t.strictSame(ids(fromBlock), [1], 'from a block, by type');
  });
});
