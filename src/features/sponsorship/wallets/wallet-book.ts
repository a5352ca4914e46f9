/**
 * Each server wallet as the operator needs to see it (/wallet-status, `nightgate wallet status`):
 * its NIGHT and DUST addresses, the NIGHT it holds and whether that NIGHT is registered for DUST
 * generation. Read from the indexer when asked, at most once a block: each read replays every
 * wallet's address history, which nobody needs while nobody looks.
 */
import type { Clock } from '../../../core/clock.js';
import type { NetworkName, UpstreamCredentials } from '../../../core/config/index.js';
import type { Era } from '../../../infra/ledger/index.js';
import type { WorkerPoolComponent } from '../../../infra/pool/worker-pool.js';
import { readNightUtxos } from './night-utxos.js';
import type { WalletAddress } from '../common/pool-task.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';

interface WalletHolding {
  index: number;
  /** Its NIGHT address (Bech32m `mn_addr…`): send NIGHT here. */
  address: string;
  /** Its DUST address (`mn_dust…`). */
  dustAddress: string;
  /** Unspent NIGHT, STAR (decimal). */
  night: string;
  nightUtxos: number;
  /** Its NIGHT key is registered for DUST generation (some of its NIGHT generates); false while it holds none. */
  registered: boolean;
  /** NIGHT UTXOs that generate no DUST yet (held from before the registration, until the keeper splits them). */
  idleNightUtxos: number;
}

interface WalletBookOptions {
  net: SponsoredNetwork;
  pool: WorkerPoolComponent;
  clock: Clock;
  indexerWsUrl: string;
  credentials?: UpstreamCredentials;
  timeoutMs: number;
  /** The era the wallets are synced in; none read while it is unknown. */
  eraOf(name: NetworkName): Era | undefined;
}

export class WalletBook {
  private addresses: { nightToken: string; wallets: WalletAddress[] } | undefined;
  private book: { at: number; wallets: WalletHolding[]; error: string | null } | undefined;
  private reading: Promise<void> | undefined;
  private readonly abort = new AbortController();

  constructor(private readonly opts: WalletBookOptions) {}

  /** Reads again when the last read is a block old; never two at once. */
  refresh(): void {
    const now = this.opts.clock.now();
    if (this.reading || this.abort.signal.aborted || (this.book && now - this.book.at < this.opts.net.blockTimeMs)) return;
    const era = this.opts.eraOf(this.opts.net.name);
    if (era === undefined) return;
    this.reading = this.read(era, now)
      .catch((err: unknown) => {
        this.book = { at: now, wallets: this.book?.wallets ?? [], error: (err as Error).message };
      })
      .finally(() => {
        this.reading = undefined;
      });
  }

  /** What was last read; asking starts a new read when that is a block old (the next ask sees it). */
  wallets(): { wallets: WalletHolding[]; readAt: string | null; error: string | null } {
    this.refresh();
    return { wallets: this.book?.wallets ?? [], readAt: this.book ? new Date(this.book.at).toISOString() : null, error: this.book?.error ?? null };
  }

  /** Resolves when the read under way (if any) has ended (tests). */
  async settled(): Promise<void> {
    await this.reading;
  }

  close(): void {
    this.abort.abort();
  }

  private async read(era: Era, now: number): Promise<void> {
    const { net } = this.opts;
    this.addresses ??= await this.opts.pool.run(
      'poolAddresses',
      { args: { era, networkId: net.networkId, seeds: [...net.seeds] } },
      { signal: this.abort.signal, work: "deriving the server wallets' addresses" },
    );
    const { nightToken, wallets } = this.addresses;
    const out: WalletHolding[] = [];
    for (const [index, a] of wallets.entries()) {
      const utxos = await readNightUtxos(this.opts.indexerWsUrl, a.bech32, nightToken, this.opts.timeoutMs, this.opts.credentials);
      const night = utxos.reduce((s, u) => s + BigInt(u.value), 0n);
      const registered = utxos.filter((u) => u.registered === true).length;
      out.push({
        index,
        address: a.bech32,
        dustAddress: a.dust,
        night: night.toString(),
        nightUtxos: utxos.length,
        registered: registered > 0,
        idleNightUtxos: utxos.length - registered,
      });
    }
    this.book = { at: now, wallets: out, error: null };
  }
}
