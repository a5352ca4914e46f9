import t from 'tap';
import { parseSmaps } from '../../../bench/lib/memory-map.js';

const mapping = (range: string, perms: string, name: string, rssKb: number): string =>
  `${range} ${perms} 00000000 00:00 0 ${name}\nSize: 0 kB\nRss: ${rssKb} kB\nPss: ${rssKb} kB\n`;

t.test('parseSmaps: WebAssembly memories, malloc heap, other anonymous memory and files apart', async (t) => {
  const text = [
    mapping('00400000-00600000', 'r-xp', '/usr/bin/node', 2048),
    mapping('01000000-02000000', 'rw-p', '[heap]', 1024),
    // A WebAssembly memory: 64 MiB in use, followed by the rest of its 10 GiB reservation.
    mapping('7f0000000000-7f0004000000', 'rw-p', '', 40 * 1024),
    mapping('7f0004000000-7f0280000000', '---p', '', 0),
    // Another, smaller.
    mapping('7f1000000000-7f1001000000', 'rw-p', '', 3 * 1024),
    mapping('7f1001000000-7f1280000000', '---p', '', 0),
    // A malloc arena: 64 MiB reserved, partly used: not a WebAssembly memory.
    mapping('7f2000000000-7f2000800000', 'rw-p', '', 5 * 1024),
    mapping('7f2000800000-7f2004000000', '---p', '', 0),
    mapping('7f3000000000-7f3000100000', 'rw-p', '[stack]', 512),
    mapping('7f4000000000-7f4000200000', 'r--p', '/lib/x86_64-linux-gnu/libc.so.6', 1536),
  ].join('');
  const m = parseSmaps(text);
  t.same(m.wasmEachMiB, [40, 3]);
  t.equal(m.wasmMiB, 43);
  t.equal(m.brkMiB, 1);
  t.equal(m.anonMiB, 5.5, 'the arena and the stack');
  t.equal(m.fileMiB, 3.5);
});

t.test('parseSmaps: empty text', async (t) => {
  t.same(parseSmaps(''), { wasmMiB: 0, wasmEachMiB: [], brkMiB: 0, anonMiB: 0, fileMiB: 0 });
});
