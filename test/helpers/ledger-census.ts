/**
 * Counts live ledger-v8 objects by class, for leak tests. wasm-bindgen gives every class a
 * FinalizationRegistry: an object is registered when JS gets it and unregistered when it is freed
 * (`free()`) or handed back to WASM (a call that takes ownership). Anything still registered is
 * freed only after a major GC, which a small JS heap seldom runs, while its WASM memory is never
 * returned (issue #8): code on a hot path must free what it makes. This module replaces
 * `FinalizationRegistry` with a counting subclass, so it must be evaluated before any ledger
 * module: import it first, for its side effect, in a test file of its own.
 */
const Native = globalThis.FinalizationRegistry;
const live = new Map<string, number>();
/** token → where it was made, while `traceSites(true)`. */
let sites: Map<WeakKey, string> | undefined;

class CountingRegistry<T> extends Native<T> {
  readonly #kind: string;
  constructor(cleanup: (held: T) => void) {
    super(cleanup);
    const source = String(cleanup);
    // wasm-bindgen's closure registry: its entries are not unregistered when Rust drops a closure
    // (only their JS wrapper is left to GC), so they say nothing about WASM memory.
    this.#kind = /__wbg_(\w+?)_free/.exec(source)?.[1] ?? (source.includes('dtor') ? 'closure' : 'other');
  }
  override register(target: WeakKey, held: T, token?: WeakKey): void {
    super.register(target, held, token);
    if (token === undefined) return;
    live.set(this.#kind, (live.get(this.#kind) ?? 0) + 1);
    sites?.set(token, `${this.#kind} ${siteOf(new Error().stack ?? '')}`);
  }
  override unregister(token: WeakKey): boolean {
    const removed = super.unregister(token);
    if (removed) live.set(this.#kind, (live.get(this.#kind) ?? 0) - 1);
    sites?.delete(token);
    return removed;
  }
}
globalThis.FinalizationRegistry = CountingRegistry as unknown as FinalizationRegistryConstructor;

/** The first frames outside node_modules: the code that made the object. */
function siteOf(stack: string): string {
  const frames = stack.split('\n').slice(1).map((l) => l.trim().replace(/^at /, ''));
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

/** Live (registered, not freed) ledger objects per class. */
export function census(): Map<string, number> {
  return new Map([...live].filter(([kind, n]) => n !== 0 && kind !== 'closure'));
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
