import t from 'tap';
import { startNetwork } from '../../fixtures/devnet/harness.js';
import { epochAt } from '../../../src/devnet/epoch.js';

t.test('slot utilization counts from when live production started, not from the backdated genesis', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  for (let i = 0; i < 3; i++) await h.network.produceBlock();
  const epoch = epochAt(Date.now()).epochNo;
  const res = await h.gql<{ epochUtilization: number | null }>('query U($e: Int!) { epochUtilization(epoch: $e) }', { e: epoch });
  t.equal(res.errors, undefined);
  t.equal(res.data?.epochUtilization, 1, 'blocks in every live slot so far: fully utilized');
  const past = await h.gql<{ epochUtilization: number | null }>('query U($e: Int!) { epochUtilization(epoch: $e) }', { e: epoch + 5 });
  t.equal(past.data?.epochUtilization, null, 'a future epoch has no utilization yet');
});
