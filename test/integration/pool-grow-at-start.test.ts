/**
 * `dust.growAtStart`: the keeper grows the pool to its target from the first synced block with
 * no demand at all, and the sponsorship component is not ready (/readyz) until the wallets hold
 * it. Waited for through the DUST sync's reports (one per block of the devnet), never a time.
 */
import t from 'tap';
import { startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import type { Component } from '../../src/infra/app-context.js';

const TARGET = 72;

t.test('the pool grows to its target before traffic, and is not ready until then', async (t) => {
  const app = await startSponsorApp({ dust: { targetUtxos: TARGET, growAtStart: true } });
  t.teardown(() => app.close());
  const component = app.app.context.component<Component>('sponsorship')!;
  const table = app.service.network('preview')!.table;
  await app.service.whenSynced('preview');
  const keeper = app.service.keeper('preview')!;
  const atStart = table.counts();
  t.equal(atStart.free + atStart.reserved, 66, 'genesis: 66 DUST UTXOs');
  t.equal(atStart.reserved, 0, 'no demand');
  t.same(await component.ready!(), [`dust:preview: growing the DUST pool to its target (66 of ${TARGET} UTXOs)`], 'not ready: the pool is filling');
  let reports = 0;
  await app.untilSync(() => !keeper.status().filling || ++reports > 60);
  t.equal(keeper.status().filling, false, `filled after ${reports} sync reports`);
  t.ok(keeper.status().live >= TARGET, `${keeper.status().live} DUST UTXOs held, target ${TARGET}`);
  t.ok(keeper.status().maintenance.splitsSubmitted >= 2, `${keeper.status().maintenance.splitsSubmitted} splits though nothing was ever reserved by a user`);
  t.same(await component.ready!(), [], 'ready');
});
