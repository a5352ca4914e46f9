/** What wasm-bindgen puts on every ledger object: its pointer (0 once freed or consumed) and `free`. */
interface WasmObject {
  __wbg_ptr?: number;
  free?: () => void;
}

/**
 * Frees ledger objects now rather than at the next major GC. A ledger object lives in WASM
 * memory behind a JS wrapper of a few bytes, so V8 feels no pressure to collect it; it is freed
 * (through a FinalizationRegistry) only after a major GC, which a small JS heap seldom runs, and
 * WASM memory never shrinks. Pass only objects nothing will use again; one already
 * freed, or consumed by a call that took ownership of it, is skipped.
 */
export function release(...objects: unknown[]): void {
  for (const o of objects) {
    const w = o as WasmObject | null | undefined;
    if (w && typeof w.free === 'function' && w.__wbg_ptr) w.free();
  }
}
