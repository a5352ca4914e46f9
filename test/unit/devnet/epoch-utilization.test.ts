import t from 'tap';
import { startNetwork } from '../../fixtures/devnet/harness.js';
import { epochAt } from '../../../packages/devnet/src/epoch.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const UTILIZATION = 'query U($e: Int!) { epochUtilization(epoch: $e) }';

t.test('slot utilization counts from when live production started, not from the backdated genesis', async (t) => {
  // Start early in an epoch so the whole test stays inside it.
  const clock = new ManualClock(Math.floor(Date.now() / 1_800_000) * 1_800_000 + 60_000);
  const h = await startNetwork({ now: () => clock.now() });
  t.teardown(() => h.close());
  const epoch = epochAt(clock.now()).epochNo;
  const utilization = async (): Promise<number | null | undefined> =>
    (await h.gql<{ epochUtilization: number | null }>(UTILIZATION, { e: epoch })).data?.epochUtilization;

  t.equal(await utilization(), null, 'less than one live slot: nothing to measure yet');
  clock.advance(6_000);
  await h.network.produceBlock();
  clock.advance(6_000);
  await h.network.produceBlock();
  t.equal(await utilization(), 1, 'a block in every live slot: fully utilized (the 6 h genesis gap does not count)');
  clock.advance(30_000);
  await h.network.produceBlock();
  clock.advance(1);
  // 42 s live: 6 slots counted (half a slot of grace), 3 blocks.
  t.equal(await utilization(), 0.5);
  const future = await h.gql<{ epochUtilization: number | null }>(UTILIZATION, { e: epoch + 5 });
  t.equal(future.data?.epochUtilization, null, 'a future epoch has no utilization yet');
});
