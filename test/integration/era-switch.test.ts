/**
 * An embedded network on ledger 8 switches to ledger 9 at a height a little
 * after start (3 s blocks) while 50 clients keep sponsoring and submitting. Each client owns a
 * NIGHT address (the same in both eras), asks the faucet for NIGHT in the era the chain runs,
 * builds a transfer of that era, has it sponsored (`/prove-and-balance` or `/balance-only`),
 * submits the answer to the devnet and waits a few blocks for it; after the switch it asks the
 * faucet again (the fresh ledger-9 state re-funds only the devnet's own accounts and the server
 * wallets) and goes on.
 *
 * Across the switch: no DUST UTXO is handed out twice (distinct reservations among the answers,
 * distinct DUST nullifiers among the landed transactions, no DustDoubleSpend at submit), no 5xx,
 * a sponsorship caught mid-switch answers 409 LEDGER_ERA_CHANGED or 400 LEDGER_ERA_MISMATCH,
 * every DUST UTXO of ledger 8 is SPENT once the sync is on ledger 9 (none left reserved), answers
 * are 200 again within 8 blocks of the switch, and the sync goes on on ledger 9 (wallet-status).
 * The statistics still decode blocks and transactions from before the switch; `X-Midnight-Ledger`
 * follows the new era (`/proof-versions` is what the dev backend proves, V2, on both).
 *
 * The clients: test/fixtures/dust/era-switch-clients.ts. Every wait is bounded in blocks
 * (ChainFollower) or sync statuses; nothing sleeps.
 */
import t from 'tap';
import { request } from 'undici';
import { mountProver } from '../../src/features/proving/index.js';
import { mountStats } from '../../src/features/stats/index.js';
import { mountSponsorship, SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../src/features/sponsorship/index.js';
import type { SyncStatus } from '../../src/features/sponsorship/wallets/wallet-sync.js';
import { DEVNET_PROTOCOL_VERSION, ledger, type Era } from '../../src/infra/ledger/index.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import type { ConfigInput } from '../../src/core/config/index.js';
import { ChainFollower } from '../fixtures/dust/chain-follower.js';
import { count, SEED0, startClients, type Json } from '../fixtures/dust/era-switch-clients.js';
import { freshUser } from '../fixtures/dust/user-tx.js';

const CLIENTS = 50;
const BLOCK_MS = 3_000;
/** The first ledger-9 block (the devnet starts at height 3: genesis, its DUST registrations and a head dated now). */
const SWITCH_AT = 14;
/** The clients stop once the tip is this many blocks past the switch. */
const RUN_AFTER_SWITCH = 9;
/** Sponsorship must answer 200 again by this many blocks after the switch (≤ 5 on a quiet machine, 6 beside a second copy of the suite). */
const RECOVERY_BLOCKS = 8;

const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };

t.test(`${CLIENTS} clients sponsor and submit across a switch from ledger 8 to 9 at ${BLOCK_MS / 1000} s blocks`, async (t) => {
  t.setTimeout(115_000);
  const started = Date.now();
  const s = await startApp(
    {
      networks: { mainnet: CLOSED, preprod: CLOSED, preview: { devnet: { ledger: 8, ledger9AtHeight: SWITCH_AT } } } as ConfigInput['networks'],
      devnet: { blockTimeMs: BLOCK_MS },
      dust: { feeTtlMs: 20_000, targetUtxos: 0, maxReservationsPerKey: 1_000, budget: (10n ** 24n).toString(), maxFee: (10n ** 18n).toString() },
      prover: { defaultNetwork: 'preview' },
      rateLimit: { enabled: false, publicEnabled: false },
    },
    { devnet: true, modules: [mountStats, mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  const service = s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!;
  const sync = (service as unknown as { opts: { sync: { onStatus(l: (s: SyncStatus) => void): () => void; status(n: string): SyncStatus | undefined } } }).opts
    .sync;
  const table = service.network('preview')!.table;
  const devnet = s.app.context.devnet.get('preview')!;
  await service.whenSynced('preview');
  t.equal(sync.status('preview')?.era, 8, 'the DUST sync starts on ledger 8');

  const follower = await ChainFollower.start(devnet.graphqlWsUrl, 0);
  t.teardown(() => follower.close());
  const tip = await request(devnet.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ block { height } }' }),
  });
  const startHeight = ((await tip.body.json()) as { data: { block: { height: number } } }).data.block.height;
  await follower.within(startHeight + 1, () => follower.tip!.height >= startHeight);
  t.equal(follower.era, 8, 'the chain runs ledger 8');
  t.ok(startHeight < SWITCH_AT - 4, `the clients start well before the switch (tip ${startHeight})`);

  const before = await get(s.url, '/proof-versions?network=preview');
  t.strictSame([before.status, before.body, before.headers['x-midnight-ledger']], [200, ['V2'], '8'], '/proof-versions on ledger 8');

  // The allocator across the switch: every slot a ledger-8 UTXO held, and what they are in when
  // the sync first reports ledger 9. Slots are recycled only after dust.spentRetentionMs (10 min),
  // so within this test a slot holds one UTXO at most.
  const oldSlots = new Set<number>();
  let atSwitch: { status: SyncStatus; oldStates: Record<string, number>; counts: ReturnType<typeof table.counts>; at: number } | undefined;
  const statusWaiters: Array<() => void> = [];
  const timeline: string[] = [];
  const offStatus = sync.onStatus((st) => {
    if (st.era === 8) {
      for (let slot = 0; slot < table.capacity; slot++) if (table.slotEntry(slot)) oldSlots.add(slot);
    } else if (st.era === 9 && !atSwitch) {
      const oldStates: Record<string, number> = {};
      for (const slot of oldSlots) {
        const state = table.slotEntry(slot)?.state ?? 'empty';
        oldStates[state] = (oldStates[state] ?? 0) + 1;
      }
      atSwitch = { status: st, oldStates, counts: table.counts(), at: Date.now() };
    }
    if (st.era === 9 || timeline.length > 0) timeline.push(`${((Date.now() - started) / 1000).toFixed(1)}:${st.era}:${st.phase}:${st.eventId}/${st.maxId}`);
    for (const w of statusWaiters.splice(0)) w();
  });
  t.teardown(offStatus);
  /** The next sync status or the next block, whichever comes first: a client's pause after a refusal. */
  const nextEvent = (): Promise<unknown> => Promise.race([follower.nextBlock(), new Promise<void>((r) => statusWaiters.push(r))]);

  const clients = startClients({ url: s.url, faucetUrl: devnet.faucetUrl, submitUrl: devnet.submitUrl, follower, nextEvent }, CLIENTS);
  const ran = await follower.within(SWITCH_AT + RUN_AFTER_SWITCH + 10, () => follower.tip!.height >= SWITCH_AT + RUN_AFTER_SWITCH);
  await clients.stop();
  t.ok(ran, `the chain reached height ${SWITCH_AT + RUN_AFTER_SWITCH} (tip ${follower.tip!.height})`);
  t.strictSame(clients.failures, [], 'no client saw a 5xx or an unexpected refusal, and none failed');
  const { answers, submits, devnetErrors } = clients;

  // Figures.
  const byStatus = new Map<string, number>();
  for (const a of answers) count(byStatus, `ledger ${a.era} ${a.status}${a.code ? ` ${a.code}` : ''}`);
  const switchBlock = follower.blocks.find((b) => b.era === 9)!;
  t.equal(switchBlock.height, SWITCH_AT, `ledger 9 starts at height ${SWITCH_AT}`);
  const first9 = answers.filter((a) => a.status === 200 && a.era === 9).sort((a, b) => a.at - b.at)[0];
  const figures = {
    clients: CLIENTS,
    sponsorships: answers.length,
    byStatus: Object.fromEntries([...byStatus].sort()),
    submits: Object.fromEntries(submits),
    devnetConnectionErrors: Object.fromEntries(devnetErrors),
    landed: clients.landed,
    notLandedWithinBound: clients.notLanded,
    ledger8AnswersSentAfterSwitch: Object.fromEntries([
      ...answers
        .filter((a) => a.era === 8 && a.afterSwitch)
        .reduce(
          (m, a) =>
            m.set(
              `${a.status} ${a.code}${a.submit ? ` → ${a.submit.slice(0, 40)}` : ''}`,
              (m.get(`${a.status} ${a.code}${a.submit ? ` → ${a.submit.slice(0, 40)}` : ''}`) ?? 0) + 1,
            ),
          new Map<string, number>(),
        ),
    ]),
    firstLedger9Answer: first9
      ? { tip: first9.tip, blocksAfterSwitch: first9.tip - SWITCH_AT, secondsAfterSwitchBlockSeen: (first9.at - switchBlock.seenAt) / 1000 }
      : null,
    syncAtSwitch: atSwitch && {
      oldSlots: oldSlots.size,
      oldStates: atSwitch.oldStates,
      counts: atSwitch.counts,
      secondsAfterSwitchBlockSeen: (atSwitch.at - switchBlock.seenAt) / 1000,
    },
    seconds: (Date.now() - started) / 1000,
    perTip: Object.fromEntries(
      [...new Set(answers.map((a) => a.tip))].map((h) => [
        h,
        answers
          .filter((a) => a.tip === h)
          .map((a) => `${a.era}:${a.status}`)
          .reduce(
            (m, k) => {
              m[k] = (m[k] ?? 0) + 1;
              return m;
            },
            {} as Record<string, number>,
          ),
      ]),
    ),
    droppedAtBlockTime: Object.fromEntries(
      s.logs.lines
        .filter((l) => l['msg'] === 'transaction dropped at block time')
        .reduce((m, l) => {
          const k = `${l['origin']}: ${String(l['reason'])
            .replace(/[0-9a-f]{16,}/g, '…')
            .slice(0, 120)}`;
          return m.set(k, (m.get(k) ?? 0) + 1);
        }, new Map<string, number>()),
    ),
    faucetStalls: s.logs.lines.filter((l) => /the treasury cannot pay|faucet payout failed/.test(String(l['msg']))).length,
    syncTimeline: timeline.slice(0, 8).join(' '),
    latencyMs: percentiles(answers.map((a) => a.ms)),
    blocks: follower.blocks
      .filter((b) => b.height > 2)
      .map((b) => `${b.height}:${b.era}:${b.transactions.length}:${((b.seenAt - started) / 1000).toFixed(1)}`)
      .join(' '),
  };
  t.comment(JSON.stringify(figures, null, 1));

  // 0 double-spends: no two answers hold the same reservation (slots are not recycled here)...
  const ok = answers.filter((a) => a.status === 200);
  const slots = new Map<number, number>();
  for (const a of ok) count(slots as unknown as Map<string, number>, a.slot as unknown as string);
  t.strictSame(
    [...slots].filter(([, n]) => n > 1),
    [],
    `${ok.length} answers, each on its own DUST UTXO`,
  );
  // ...no DUST UTXO paid for two landed transactions...
  const ours = new Set(ok.map((a) => a.txHash));
  const nullifiers = new Map<string, string[]>();
  let landedChecked = 0;
  for (const b of follower.blocks) {
    for (const tx of b.transactions) {
      if (!ours.has(tx.hash)) continue;
      landedChecked++;
      for (const n of dustNullifiers(b.era, tx.raw)) nullifiers.set(`${b.era}:${n}`, [...(nullifiers.get(`${b.era}:${n}`) ?? []), tx.hash]);
    }
  }
  t.strictSame(
    [...nullifiers].filter(([, txs]) => txs.length > 1),
    [],
    `${landedChecked} sponsored transactions landed, each spending its own DUST UTXO`,
  );
  t.notOk(
    [...submits.keys()].some((k) => /DustDoubleSpend|196/.test(k)),
    'the devnet refused no submission as a DUST double spend',
  );
  const landedPerEra = (era: Era) =>
    follower.blocks.filter((b) => b.era === era).reduce((n, b) => n + b.transactions.filter((tx) => ours.has(tx.hash)).length, 0);
  t.ok(
    landedPerEra(8) > 0 && landedPerEra(9) > 0,
    `sponsored transactions landed in both eras (${landedPerEra(8)} on ledger 8, ${landedPerEra(9)} on ledger 9)`,
  );

  // Mid-switch answers are 409 LEDGER_ERA_CHANGED or 400 LEDGER_ERA_MISMATCH; nothing is a 5xx.
  t.strictSame(
    answers.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.code}`),
    [],
    '0 5xx from nightgate',
  );
  t.strictSame(
    answers
      .filter((a) => a.status !== 200 && !(a.status === 409 && a.code === 'LEDGER_ERA_CHANGED') && !(a.status === 400 && a.code === 'LEDGER_ERA_MISMATCH'))
      .map((a) => `${a.status} ${a.code}: ${a.message} (client ${a.client}, ledger ${a.era}, tip ${a.tip}, ${a.ms} ms)`),
    [],
    'every refusal is of the switch: 409 LEDGER_ERA_CHANGED or 400 LEDGER_ERA_MISMATCH',
  );

  // Nothing reserved under ledger 8 is reserved after the switch: every ledger-8 UTXO is SPENT.
  t.ok(atSwitch, 'the sync reported ledger 9');
  t.ok(oldSlots.size >= 66, `the ledger-8 wallets held ${oldSlots.size} DUST UTXOs`);
  t.strictSame(
    atSwitch?.oldStates,
    { spent: oldSlots.size },
    'when the sync first reports ledger 9, every ledger-8 DUST UTXO is SPENT (none reserved, none free)',
  );
  const oldNow: Record<string, number> = {};
  for (const slot of oldSlots) oldNow[table.slotEntry(slot)?.state ?? 'empty'] = (oldNow[table.slotEntry(slot)?.state ?? 'empty'] ?? 0) + 1;
  t.strictSame(oldNow, { spent: oldSlots.size }, 'and still at the end');
  t.notOk(
    ok.some((a) => a.era === 8 && !oldSlots.has(a.slot!)),
    'every ledger-8 answer was paid by a ledger-8 DUST UTXO',
  );
  t.notOk(
    ok.some((a) => a.era === 9 && oldSlots.has(a.slot!)),
    'no ledger-9 answer was paid by one',
  );

  // The same ledger-8 bytes answered before the switch are refused after it, not answered again from the dedupe cache.
  const again = await request(`${s.url}/${clients.answered8!.kind}?network=preview`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
    body: clients.answered8!.body,
  });
  const againJson = (await again.body.json()) as Json;
  t.strictSame(
    [again.statusCode, againJson['code']],
    [400, 'LEDGER_ERA_MISMATCH'],
    'a ledger-8 body answered before the switch, sent again after it: 400 LEDGER_ERA_MISMATCH',
  );

  // Sponsorship answers 200 again within RECOVERY_BLOCKS blocks of the switch.
  t.ok(first9, 'ledger-9 transfers were sponsored');
  t.ok(
    first9 && first9.tip - SWITCH_AT <= RECOVERY_BLOCKS,
    `the first ledger-9 answer came at tip ${first9?.tip}, ${first9 ? first9.tip - SWITCH_AT : '?'} blocks after the switch (at most ${RECOVERY_BLOCKS})`,
  );

  // The DUST sync goes on on ledger 9.
  const ws = await get(s.url, '/wallet-status');
  const preview = ws.body['preview'] as Json;
  t.equal(preview.sync.phase, 'synced', 'wallet-status: synced');
  t.equal(preview.sync.era, 9, 'wallet-status: on ledger 9');
  t.equal(preview.sync.eraSwitches, 1, 'wallet-status: one switch');
  t.ok(preview.sync.eventId >= (atSwitch?.status.eventId ?? Infinity), `the sync went on past the switch (event ${preview.sync.eventId})`);
  t.ok(preview.utxos.spent >= oldSlots.size, 'wallet-status counts the ledger-8 UTXOs as spent');
  t.ok(BigInt(preview.balance) > 0n, 'the ledger-9 wallets hold DUST');

  // Proving follows the new era.
  const after = await get(s.url, '/proof-versions?network=preview');
  t.strictSame([after.status, after.body, after.headers['x-midnight-ledger']], [200, ['V2'], '9'], '/proof-versions on ledger 9');

  // Statistics: a block and a transaction from before the switch still decode.
  const oldBlock = follower.blocks.find((b) => b.era === 8 && b.transactions.some((tx) => ours.has(tx.hash)))!;
  const oldTx = oldBlock.transactions.find((tx) => ours.has(tx.hash))!;
  const block = await get(s.url, `/api/v1/preview/block?height=${oldBlock.height}`);
  t.equal(block.status, 200, `block ${oldBlock.height} (ledger 8) through the statistics API`);
  t.strictSame([block.body['height'], block.body['protocolVersion'], block.body['ledger']], [oldBlock.height, DEVNET_PROTOCOL_VERSION[8], 8]);
  t.ok(
    (block.body['transactions'] as Json[]).some((x) => x['hash'] === oldTx.hash),
    'with its sponsored transaction',
  );
  const tx = await get(s.url, `/api/v1/preview/transaction?hash=${oldTx.hash}`);
  t.equal(tx.status, 200, 'a ledger-8 transaction through the statistics API');
  t.strictSame([tx.body['hash'], tx.body['protocolVersion'], tx.body['ledger']], [oldTx.hash, DEVNET_PROTOCOL_VERSION[8], 8]);
  const newBlock = await get(s.url, `/api/v1/preview/block?height=${SWITCH_AT}`);
  t.strictSame([newBlock.status, newBlock.body['ledger']], [200, 9], `block ${SWITCH_AT} is of ledger 9`);
  const latest = await get(s.url, '/api/v1/preview/latest-block');
  t.strictSame([latest.status, latest.body['ledger']], [200, 9], 'the latest block is of ledger 9');
  const summary = await get(s.url, '/api/v1/preview/summary');
  t.strictSame([summary.status, summary.body['ledger']], [200, 9], 'the summary says ledger 9');
  // A client's address across the switch: its ledger-8 NIGHT is shown spent (the switch block
  // retires it), what it holds now is of ledger 9.
  const holder = Array.from({ length: CLIENTS }, (_, i) => freshUser(SEED0 + i, 9)).find((u) => follower.utxosOf(u.address).length > 0)!;
  const activity = await get(s.url, `/api/v1/preview/address-activity?identifier=${holder.bech32}&limit=100`);
  t.equal(activity.status, 200, 'address activity of a client');
  const unspent = (activity.body['utxos'] as Json[]).filter((u) => !u['spent']);
  t.ok(unspent.length > 0 && unspent.every((u) => u['createdAtHeight'] >= SWITCH_AT), `its ${unspent.length} unspent UTXOs are all of ledger 9`);
});

function percentiles(xs: number[]): Record<string, number> {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), max: sorted[sorted.length - 1] ?? 0 };
}

async function get(base: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Json }> {
  const res = await request(`${base}${path}`, { headers: { 'x-api-key': TEST_KEY } });
  const text = await res.body.text();
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = { text };
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/** The DUST nullifiers a landed transaction spends (hex), read with its era's ledger. */
function dustNullifiers(era: Era, rawHex: string): string[] {
  const L = ledger(era);
  const tx = L.Transaction.deserialize('signature', 'proof', 'binding', Buffer.from(rawHex, 'hex'));
  const out: string[] = [];
  for (const intent of tx.intents?.values() ?? []) {
    for (const spend of intent.dustActions?.spends ?? []) out.push(spend.oldNullifier.toString(16));
  }
  return out;
}
