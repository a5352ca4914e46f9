/**
 * InputHolds on one instance: a transaction's inputs held from its admission; another holder
 * refused with 409 INPUT_HELD naming the input and until when; the same holder not refused; the
 * holds end when the sponsorship fails, when its answer's reservation ends (landed or reclaimed:
 * no longer live in the table) or at their time, and only the answer that holds them ends them.
 */
import t from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { isGatewayError } from '../../../../src/core/errors.js';
import { InputHolds } from '../../../../src/features/sponsorship/reservations/input-holds.js';
import type { UnshieldedInput } from '../../../../src/features/sponsorship/common/balance-task.js';
import type { SponsoredNetwork } from '../../../../src/features/sponsorship/common/sponsored-network.js';

const live = new Set<string>();
const net = {
  name: 'preview',
  table: { isLive: (r: { slot: number; generation: number }) => live.has(`${r.slot}:${r.generation}`) },
} as unknown as SponsoredNetwork;
const input = (n: number, owner = 'aa'.repeat(32)): UnshieldedInput => ({ owner, intentHash: 'AB'.repeat(32), outputNo: n, type: '00'.repeat(32), value: '1' });

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; retryAfter: string | undefined }> {
  try {
    await p;
  } catch (err) {
    if (isGatewayError(err)) return { code: err.code, message: err.message, retryAfter: (err.headers as Record<string, string> | undefined)?.['Retry-After'] };
    throw err;
  }
  return { code: 'none', message: '', retryAfter: undefined };
}

t.test('held against other holders until the answer ends', async (t) => {
  const clock = new ManualClock(1_000_000);
  const ended: string[][] = [];
  const holds = new InputHolds(clock, undefined, (_n, owners) => ended.push([...owners]));
  const a = await holds.acquire(net, [input(0), input(1)], 'A', clock.now() + 60_000);
  t.ok(a, 'A holds its inputs');
  const r = await refusal(holds.acquire(net, [input(2), input(1)], 'B', clock.now() + 60_000));
  t.equal(r.code, 'INPUT_HELD');
  t.match(r.message, new RegExp(`input ${'ab'.repeat(32)}#1 on preview.*at the latest ${new Date(1_060_000).toISOString()}`));
  t.equal(r.retryAfter, '60');
  t.equal(holds.size, 2, "B's other input was not held");
  t.ok(await holds.acquire(net, [input(1)], 'A', clock.now() + 60_000), 'the same holder is not refused');

  // Answered: held while its reservation is live.
  live.add('5:1');
  holds.answered(a!, { slot: 5, generation: 1 }, clock.now() + 30_000);
  t.equal((await refusal(holds.acquire(net, [input(0)], 'B', clock.now() + 60_000))).code, 'INPUT_HELD');
  // Another answer's reservation ending does not end these holds.
  holds.release(a!, { slot: 6, generation: 1 });
  t.equal(holds.size, 2);
  // Landed or reclaimed: no longer live; the next look frees them and tells who owned them.
  live.delete('5:1');
  holds.settle(net);
  t.equal(holds.size, 0);
  t.same(ended, [['aa'.repeat(32)]]);
  t.ok(await holds.acquire(net, [input(0)], 'B', clock.now() + 60_000), 'B holds it now');
});

t.test('a failed sponsorship gives its holds back; holds end at their time', async (t) => {
  const clock = new ManualClock(2_000_000);
  const holds = new InputHolds(clock);
  const a = await holds.acquire(net, [input(7)], 'A', clock.now() + 10_000);
  holds.release(a!);
  t.ok(await holds.acquire(net, [input(7)], 'B', clock.now() + 10_000), 'released at once');
  t.equal((await refusal(holds.acquire(net, [input(7)], 'C', clock.now() + 10_000))).code, 'INPUT_HELD');
  clock.advance(10_000);
  t.ok(await holds.acquire(net, [input(7)], 'C', clock.now() + 10_000), 'past its time');
  t.equal(await holds.acquire(net, [], 'D', clock.now()), undefined, 'nothing to hold');
});
