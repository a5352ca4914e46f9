/** V8 heaps, from the server's `--trace-gc` output: each isolate's size after its full collections. */
import { performance } from 'node:perf_hooks';
import { eachLine } from '../lib/processes.js';

/** One full (mark-compact) collection of one isolate: the heap's size after it, MB as V8 prints. */
export interface MajorGc {
  at: number;
  afterMB: number;
}

/** `[pid:0xISOLATE]  1234 ms: Mark-Compact (reduce) 120.5 (150.2) -> 80.1 (140.3) MB, …` */
const MARK_COMPACT = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

/** Every isolate's full collections, read from the server's stdout (`--trace-gc` prints there). */
export function watchMajorGcs(stdout: NodeJS.ReadableStream): Map<string, MajorGc[]> {
  const byIsolate = new Map<string, MajorGc[]>();
  eachLine(stdout, (line) => {
    const m = MARK_COMPACT.exec(line);
    if (!m) return;
    const list = byIsolate.get(m[1]!) ?? [];
    list.push({ at: performance.now(), afterMB: Number(m[2]) });
    byIsolate.set(m[1]!, list);
  });
  return byIsolate;
}
