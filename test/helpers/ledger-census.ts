/**
 * Counts live ledger objects (either era's package, and any other wasm-bindgen module) by class,
 * for leak tests. wasm-bindgen gives every class a FinalizationRegistry: an object is registered
 * when JS gets it and unregistered when it is freed (`free()`) or handed back to WASM (a call that
 * takes ownership). Anything still registered is freed only after a major GC, which a small JS
 * heap seldom runs, while its WASM memory is never returned: code on a hot path must
 * free what it makes. This module replaces `FinalizationRegistry` with a counting subclass, so it
 * must be evaluated before any ledger module: import it first, for its side effect, in a test file
 * of its own.
 *
 * Both eras' packages name their classes alike (`intent`, `transaction`): `census()` counts them
 * together, `census(era)` only the objects of that era's package (told apart by the file that made
 * the registry: ledger 9's is `midnight_ledger_wasm_v9_bg.js`).
 */
const Native = globalThis.FinalizationRegistry;
const live = new Map<string, number>();
/** The same counts per ledger era, for registries made by a ledger package. */
const liveByEra = new Map<8 | 9, Map<string, number>>([
  [8, new Map()],
  [9, new Map()],
]);

/** The ledger era whose package is making a registry now, from the stack of its constructor. */
function eraOfStack(stack: string): 8 | 9 | undefined {
  if (/midnight_ledger_wasm_v9_bg|ledger-v9/.test(stack)) return 9;
  if (/midnight_ledger_wasm_bg|ledger-v8/.test(stack)) return 8;
  return undefined;
}

function count(kind: string, era: 8 | 9 | undefined, d: number): void {
  live.set(kind, (live.get(kind) ?? 0) + d);
  if (era === undefined) return;
  const m = liveByEra.get(era)!;
  m.set(kind, (m.get(kind) ?? 0) + d);
}
/** token → where it was made, while `traceSites(true)`. */
let sites: Map<WeakKey, string> | undefined;

class CountingRegistry<T> extends Native<T> {
  readonly #kind: string;
  readonly #era: 8 | 9 | undefined;
  constructor(cleanup: (held: T) => void) {
    super(cleanup);
    this.#era = eraOfStack(new Error().stack ?? '');
    const source = String(cleanup);
    // wasm-bindgen's closure registry: its entries are not unregistered when Rust drops a closure
    // (only their JS wrapper is left to GC), so they say nothing about WASM memory.
    this.#kind = /__wbg_(\w+?)_free/.exec(source)?.[1] ?? (source.includes('dtor') ? 'closure' : 'other');
  }
  override register(target: WeakKey, held: T, token?: WeakKey): void {
    super.register(target, held, token);
    if (token === undefined) return;
    count(this.#kind, this.#era, 1);
    sites?.set(token, `${this.#kind} ${siteOf(new Error().stack ?? '')}`);
  }
  override unregister(token: WeakKey): boolean {
    const removed = super.unregister(token);
    if (removed) count(this.#kind, this.#era, -1);
    sites?.delete(token);
    return removed;
  }
}
globalThis.FinalizationRegistry = CountingRegistry as unknown as FinalizationRegistryConstructor;

/** The first frames outside node_modules: the code that made the object. */
function siteOf(stack: string): string {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''));
  const ours = frames.filter((f) => !f.includes('node_modules') && !f.includes('ledger-census') && !f.startsWith('node:') && !f.includes('wasm://'));
  return ours.slice(0, 2).join(' < ') || 'unknown';
}

/** From now on, remember where each live object was made (slow: a stack trace per object). */
export function traceSites(on: boolean): void {
  sites = on ? new Map() : undefined;
}

/** Live objects made since `traceSites(true)`, counted by class and making site, most first. */
export function liveSites(): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const site of sites?.values() ?? []) counts.set(site, (counts.get(site) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** Live (registered, not freed) ledger objects per class; with `era`, only those of that era's ledger package. */
export function census(era?: 8 | 9): Map<string, number> {
  const counts = era === undefined ? live : liveByEra.get(era)!;
  return new Map([...counts].filter(([kind, n]) => n !== 0 && kind !== 'closure'));
}

/** What `after` holds beyond `before`, per class (only growth). */
export function growth(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, n] of after) {
    const d = n - (before.get(kind) ?? 0);
    if (d > 0) out[kind] = d;
  }
  return out;
}
