// One read of an address's unspent UTXOs (input-check.ts): created minus spent up to the indexer's
// progress marker; a history that ends before the marker is not an answer.
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import t, { type Test } from 'tap';
import { WebSocketServer } from 'ws';
import { InputChecker, readUnspentUtxos } from '../../../../src/features/sponsorship/reservations/input-check.js';
import { DEVNET_PROTOCOL_VERSION, ERA_TABLE } from '../../../../src/infra/ledger/index.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

/** The first protocol version of ledger 9. */
const LEDGER_9_PROTOCOL_VERSION = ERA_TABLE[9].firstProtocolVersion;

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const NIGHT = '00'.repeat(32);
const tx = (created: Array<[string, number]>, spent: Array<[string, number]>, protocolVersion = LEDGER_9_PROTOCOL_VERSION) => ({
  __typename: 'UnshieldedTransaction',
  transaction: { protocolVersion },
  createdUtxos: created.map(([intentHash, outputIndex]) => ({
    tokenType: NIGHT,
    value: '5',
    intentHash,
    outputIndex,
    ctime: 1_700_000_000,
    registeredForDustGeneration: true,
  })),
  spentUtxos: spent.map(([intentHash, outputIndex]) => ({ intentHash, outputIndex })),
});

/** An indexer's WebSocket that sends `events` for the subscription, then the marker or not, then completes. */
async function indexer(t: Test, events: unknown[], marker: boolean): Promise<string> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { type: string; id?: string };
      if (msg.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
      if (msg.type !== 'subscribe') return;
      for (const e of [...events, ...(marker ? [{ __typename: 'UnshieldedTransactionsProgress', highestTransactionId: 9 }] : [])]) {
        ws.send(JSON.stringify({ type: 'next', id: msg.id, payload: { data: { unshieldedTransactions: e } } }));
      }
      ws.send(JSON.stringify({ type: 'complete', id: msg.id }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const c of wss.clients) c.terminate();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/graphql/ws`;
}

t.test('an input spent on chain is not unspent; the rest is', async (t) => {
  const url = await indexer(
    t,
    [
      tx(
        [
          [A, 0],
          [A, 1],
        ],
        [],
      ),
      tx([[B, 0]], [[A, 0]]),
    ],
    true,
  );
  const unspent = await readUnspentUtxos(url, 'mn_addr_undeployed1x', 2_000);
  t.same([...unspent.keys()].sort(), [`${A}#1`, `${B}#0`]);
  t.match(unspent.get(`${B}#0`), { value: '5', era: 9, ctime: 1_700_000_000, registered: true });
});

t.test('a history that ends before its progress marker is refused, not taken as whole', async (t) => {
  const url = await indexer(t, [tx([[A, 0]], [])], false);
  await t.rejects(readUnspentUtxos(url, 'mn_addr_undeployed1x', 2_000), {
    code: 'INDEXER_BAD_RESPONSE',
    message: /ended the history of mn_addr_undeployed1x before its progress marker/,
  });
});

t.test('an input the change of era spent: 409 LEDGER_ERA_CHANGED for a request of the old era, 400 for one of the new', async (t) => {
  // A ledger-8 UTXO, spent by the first ledger-9 transaction (the switch takes the old era's UTXOs).
  const url = await indexer(
    t,
    [
      tx(
        [
          [A, 0],
          [A, 1],
        ],
        [],
        DEVNET_PROTOCOL_VERSION[8],
      ),
      tx([[B, 0]], [[A, 0]]),
    ],
    true,
  );
  const unspent = await readUnspentUtxos(url, 'mn_addr_undeployed1x', 2_000);
  t.same([...(unspent.spentIn ?? [])], [[`${A}#0`, 9]], 'the read names the era that spent it');
  const checker = new InputChecker({
    clock: new ManualClock(0),
    cacheMs: 10_000,
    networkIdOf: () => 'undeployed',
    reader: () => readUnspentUtxos(url, 'mn_addr_undeployed1x', 2_000),
  });
  const input = { owner: '11'.repeat(32), intentHash: A, outputNo: 0, type: NIGHT, value: '5' };
  await t.rejects(checker.check('preview', 8, [input]), { code: 'LEDGER_ERA_CHANGED', status: 409, message: /changed from ledger 8 to ledger 9/ });
  await t.rejects(checker.check('preview', 9, [input]), { code: 'TRANSACTION_REJECTED', status: 400 }, 'a ledger-9 request spending it: the input is gone');
  await t.resolves(checker.check('preview', 8, [{ ...input, outputNo: 1 }]), 'a ledger-8 UTXO this history left unspent passes for a ledger-8 request');
  await t.rejects(
    checker.check('preview', 9, [{ ...input, outputNo: 1 }]),
    { code: 'TRANSACTION_REJECTED', message: /made in ledger 8/ },
    'and is refused as of the old era for a ledger-9 one',
  );
});
