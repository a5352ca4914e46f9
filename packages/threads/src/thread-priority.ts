/**
 * Lowers the scheduling priority of the calling thread only (Linux: a thread's nice value is its
 * own, and threads it starts later inherit it). Used by the embedded devnet's chain thread, whose
 * block production is background work: under load the kernel then gives the CPU to the thread
 * serving HTTP first.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export type PriorityResult = { applied: true; nice: number } | { applied: false; reason: string };

export function lowerThreadPriority(nice: number): PriorityResult {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) return { applied: false, reason: `nice must be an integer from 0 to 19, got ${nice}` };
  if (process.platform !== 'linux') return { applied: false, reason: `per-thread priority is only set on Linux (this is ${process.platform})` };
  try {
    // "<pid>/task/<tid>": setpriority(PRIO_PROCESS, tid) changes that one thread on Linux.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return { applied: false, reason: 'could not read this thread id from /proc/thread-self' };
    // Never raise it: the process may already run at a lower priority than asked.
    if (getPriority(tid) < nice) setPriority(tid, nice);
    return { applied: true, nice: getPriority(tid) };
  } catch (err) {
    return { applied: false, reason: (err as Error).message };
  }
}
