/**
 * The worker pool's thread entry: each thread loads it as it starts, before its first task, so
 * that no request pays for a load: the ledgers of the eras the pool names
 * (src/infra/pool/worker/ledger.ts), then the task modules the app handed the pool
 * (src/infra/pool/worker/modules.ts). It names no task: each feature's tasks live in the feature.
 */
import '../src/infra/pool/worker/ledger.js';
import '../src/infra/pool/worker/modules.js';

/** piscina preloads an entry by looking up its handler (the default export): this one does nothing. */
export default function entry(): void {}
