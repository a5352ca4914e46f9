// The embedded Midnight devnet (DESIGN.md, "Embedded default: the devnet"): per network a real
// ledger-9 (or ledger-8, or 8 switching to 9) chain with synthetic traffic, an indexer-compatible GraphQL endpoint (the real v4.3.7
// schema), and loopback `/submit`, `/faucet` and `/health`. Every network runs in one worker
// thread; this module only starts it and hands back URLs.
import { launchDevnet } from './launch.js';
import type { DevnetOptions, EmbeddedDevnet } from './devnet-options.js';

export type { DevnetNetworkInfo, DevnetOptions, EmbeddedDevnet } from './devnet-options.js';

export function startDevnet(opts: DevnetOptions): Promise<EmbeddedDevnet> {
  return launchDevnet(opts);
}
