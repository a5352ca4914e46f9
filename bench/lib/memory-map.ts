/**
 * Where a process's resident memory is, by kind of mapping, from /proc/<pid>/smaps (Linux). The
 * soak uses it to attribute an RSS slope without touching the server:
 *  - `wasm`: anonymous mappings of 1 GiB or more. V8 reserves several GiB of address space for
 *    each WebAssembly memory (bounds checks by guard pages), and nothing else in nightgate maps
 *    that much, so each is one ledger package instance's linear memory (one per era per thread that loads it);
 *  - `brk`: the main malloc heap (`[heap]`);
 *  - `anon`: every other anonymous mapping: V8 heap pages of every thread, malloc arenas of the
 *    other threads, thread stacks;
 *  - `file`: mapped files (code of node, uWS and other native modules, read-only data).
 */
import { readFileSync } from 'node:fs';

export interface MemoryMap {
  wasmMiB: number;
  /** Resident MiB of each WebAssembly memory, largest first. */
  wasmEachMiB: number[];
  brkMiB: number;
  anonMiB: number;
  fileMiB: number;
}

const WASM_RESERVATION = 1n << 30n;

export function memoryMap(pid: number): MemoryMap | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  return parseSmaps(text);
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKb: number;
}

/**
 * Parse smaps text (exported for its test). A WebAssembly memory is one reservation the kernel
 * shows as two adjacent mappings once part of it is accessible: the pages in use (`rw-p`) and the
 * rest of the reservation (`---p`); together they span 1 GiB or more.
 */
export function parseSmaps(text: string): MemoryMap {
  const maps: Mapping[] = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)\s+\S+\s+\S+\s+\d+\s*(.*)$/.exec(line);
    if (head) {
      maps.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3]!, name: head[4]!.trim(), rssKb: 0 });
    } else if (line.startsWith('Rss:') && maps.length > 0) {
      maps[maps.length - 1]!.rssKb = Number(line.slice(4).trim().split(/\s+/)[0]);
    }
  }
  const wasm: number[] = [];
  let brk = 0;
  let anon = 0;
  let file = 0;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i]!;
    if (m.name === '[heap]') brk += m.rssKb;
    else if (m.name !== '' && !m.name.startsWith('[')) file += m.rssKb;
    else {
      const next = maps[i + 1];
      const reservation = next !== undefined && next.name === '' && next.perms.startsWith('---') && next.start === m.end ? next.end - m.start : m.end - m.start;
      if (m.name === '' && m.perms.startsWith('rw') && reservation >= WASM_RESERVATION) wasm.push(m.rssKb);
      else anon += m.rssKb;
    }
  }
  const mib = (kb: number): number => Math.round((kb / 1024) * 10) / 10;
  return {
    wasmMiB: mib(wasm.reduce((a, b) => a + b, 0)),
    wasmEachMiB: wasm.sort((a, b) => b - a).map(mib),
    brkMiB: mib(brk),
    anonMiB: mib(anon),
    fileMiB: mib(file),
  };
}
