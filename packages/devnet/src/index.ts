// @nightgate/devnet, the embedded Midnight devnet (docs/devnet.md): per network a real ledger-9
// (or ledger-8, or 8 switching to 9) chain with synthetic traffic, an indexer-compatible GraphQL
// endpoint (the indexer's 4.4 schema, indexer-schema.ts), and loopback `/submit`, `/faucet` and
// `/health`. Every network runs in one worker thread; this module only starts it and hands back
// URLs. The package's other entries: sponsor-seeds (the server DUST wallet seeds kept beside a
// persisted chain) and test-accounts (each network's public test account), both light to import,
// and genesis (what genesis gives each account).
import { launchDevnet } from './launch.js';
import type { DevnetOptions, EmbeddedDevnet } from './devnet-options.js';

export type { DevnetNetworkInfo } from './devnet-options.js';

export function startDevnet(opts: DevnetOptions): Promise<EmbeddedDevnet> {
  return launchDevnet(opts);
}
