import t from 'tap';
import { startModuleWorker } from '../../../../packages/threads/src/worker-thread.js';
import { SharedSnapshot } from '../../../../src/features/sponsorship/allocator/shared-snapshot.js';

t.test('publish and read, versions, capacity', async (t) => {
  const s = SharedSnapshot.create(16);
  t.equal(s.read(), undefined);
  t.equal(s.version, 0);
  const v1 = s.publish(new Uint8Array([1, 2, 3]));
  t.equal(v1, 2);
  t.same(s.read(), { version: 2, data: new Uint8Array([1, 2, 3]) });
  s.publish(new Uint8Array([9]));
  t.same(s.read(), { version: 4, data: new Uint8Array([9]) });
  t.throws(() => s.publish(new Uint8Array(17)), RangeError);
  const reader = new SharedSnapshot(s.buffer);
  t.same(reader.read()?.data, new Uint8Array([9]), 'another view of the same buffer sees it');
});

t.test('a reader thread never sees a torn snapshot while the writer publishes', async (t) => {
  const s = SharedSnapshot.create(4096);
  s.publish(new Uint8Array(100).fill(0));
  // The reader thread runs the real SharedSnapshot.read (fixtures/dust/snapshot-reader.ts).
  const w = startModuleWorker(new URL('../../../fixtures/dust/snapshot-reader', import.meta.url), import.meta.url, { workerData: s.buffer });
  const done = new Promise<{ reads: number; torn: number }>((resolve) => w.once('message', resolve));
  let k = 0;
  const writer = setInterval(() => {
    for (let i = 0; i < 200; i++) {
      k = (k + 1) % 200;
      s.publish(new Uint8Array(100 + k).fill(k));
    }
  }, 0);
  const r = await done;
  clearInterval(writer);
  await w.terminate();
  t.ok(r.reads > 0, `${r.reads} consistent reads`);
  t.equal(r.torn, 0, 'no torn read');
});

t.test('a reader that finds a write in progress waits for it instead of giving up', async (t) => {
  // A writer preempted between "sequence odd" and "sequence even" (a busy machine): the reader
  // used to spend its 1000 attempts in microseconds and throw; it now sleeps until notified.
  const s = SharedSnapshot.create(64);
  s.publish(new Uint8Array(10).fill(1));
  const header = new Int32Array(s.buffer, 0, 3);
  const bytes = new Uint8Array(s.buffer, 12);
  Atomics.add(header, 0, 1); // the stalled writer's first step: the sequence is odd (3)
  const w = startModuleWorker(new URL('../../../fixtures/dust/snapshot-stalled-reader', import.meta.url), import.meta.url, { workerData: s.buffer });
  const answers: unknown[] = [];
  const answered = new Promise<unknown>((resolve) => w.on('message', (m: unknown) => (answers.push(m), answers.length === 2 && resolve(m))));
  await new Promise<void>((resolve) => w.once('message', () => resolve()));
  // The reader is reading (a message takes far longer than the old spin): finish the write.
  bytes.fill(7, 0, 20);
  Atomics.store(header, 1, 20);
  Atomics.store(header, 0, 4);
  Atomics.notify(header, 0);
  t.same(await answered, { version: 4, length: 20, first: 7 }, 'the completed write, not an error');
  await w.terminate();
});
