/**
 * Server DUST wallets owned by one instance at a time. Two instances given the same
 * wallets would reserve the same UTXOs apart and spend them twice; so each instance holds a
 * lease in Redis on each of its wallets, per network: `lease:<network>:<wallet id>`, the value
 * its instance id, with an expiry (`state.leaseTtlMs`) it renews every third of that.
 *
 * The wallet id is public: the x-only secp256k1 public key of the wallet's NIGHT key (the key of
 * the NIGHT address that generates its DUST, packages/ledger/src/wallet-keys.ts); never the seed.
 *
 * - At start, a wallet whose lease another live instance holds stops the start with a message
 *   that names the wallet and the holder (`WalletLeaseError`).
 * - At run time, a lease found taken by another instance, or not renewed within its expiry (Redis
 *   away that long), stops sponsorship on that network: 503 WALLET_LEASE_LOST, logged at error.
 *   A lease that expired while Redis was away and that nobody took is taken again when Redis is
 *   back (logged), and sponsorship resumes; one another instance took stays lost.
 * - At shutdown the leases are released, so a replacement can start at once.
 */
import { createECDH } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';
import { GatewayError } from '../../../core/errors.js';
import { nightSecretOf, type WalletKeys } from '../../../infra/ledger/index.js';
import { registerScript, type RedisState } from '../../../infra/state/redis.js';

/** KEYS: lease. ARGV: instance id, ttl ms. → '' when held by us now (taken or renewed), else the holder's id. */
const TAKE = registerScript(
  'nightgateLeaseTake',
  1,
  `
local h = redis.call('GET', KEYS[1])
if h and h ~= ARGV[1] then return h end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''
`,
);

/** KEYS: lease. ARGV: instance id. Deletes it only if it is ours. */
const GIVE_BACK = registerScript(
  'nightgateLeaseRelease',
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`,
);

/** The public id of a wallet (`WalletKeys`): its NIGHT key's x-only public key, hex. */
export function walletId(wallet: WalletKeys): string {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(nightSecretOf(wallet)));
  return ecdh.getPublicKey('hex', 'compressed').slice(2);
}

export class WalletLeaseError extends Error {
  override name = 'WalletLeaseError';
}

interface Lease {
  network: string;
  wallet: string;
  key: string;
  /** Last time Redis confirmed it is ours (clock ms); 0 never. */
  renewedAt: number;
  /** Another instance holds it: its id. */
  takenBy?: string;
}

interface WalletLeaseOptions {
  redis: RedisState;
  clock: Clock;
  logger: Logger;
  ttlMs: number;
  /** Per network, its server wallets' keys (`WalletKeys`). */
  wallets: ReadonlyMap<string, readonly string[]>;
}

export class WalletLeases {
  private readonly leases: Lease[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;
  /** Networks whose loss is logged already (once per loss). */
  private readonly reported = new Set<string>();

  constructor(private readonly opts: WalletLeaseOptions) {
    this.log = opts.logger.child({ module: 'wallet-leases' });
    for (const [network, seeds] of opts.wallets) {
      for (const seed of seeds) {
        const wallet = walletId(seed);
        this.leases.push({ network, wallet, key: `lease:${network}:${wallet}`, renewedAt: 0 });
      }
    }
  }

  /**
   * Takes every lease; throws WalletLeaseError if another live instance holds one. With Redis
   * unreachable it returns (sponsorship refuses until Redis answers and the leases are taken).
   */
  async start(): Promise<void> {
    if (this.opts.redis.available) {
      await this.renew();
      const taken = this.leases.filter((l) => l.takenBy !== undefined);
      if (taken.length > 0) {
        const l = taken[0]!;
        await this.release();
        throw new WalletLeaseError(
          `the DUST wallet ${l.wallet.slice(0, 16)}… of ${l.network}` +
            ` is in use by another live instance (${l.takenBy}` +
            `)${
              taken.length > 1 ? ` (and ${taken.length - 1}` + ` more wallet(s))` : ''
            }: two instances must never share a wallet, or they spend the same DUST UTXOs. Give each instance its own wallets: its ` +
            `own NIGHTGATE_DUST_WALLET_ACCOUNT on one mnemonic (docs/scale-out.md), or stop the other instance; ` +
            `its lease expires ${Math.round(this.opts.ttlMs / 1000)}` +
            ` s after it stops renewing it`,
        );
      }
      this.log.info({ wallets: this.leases.map((l) => ({ network: l.network, wallet: l.wallet })), ttlMs: this.opts.ttlMs }, 'wallet leases taken');
    } else {
      this.log.warn('redis unreachable at start: wallet leases are taken once it answers; sponsorship refuses until then');
    }
    this.opts.redis.onReady(() => void this.renew());
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.opts.ttlMs / 3)));
    this.timer.unref();
  }

  /** Takes or renews every lease not lost to another instance. */
  async renew(): Promise<void> {
    if (!this.opts.redis.available) return void this.reportExpired();
    await Promise.all(
      this.leases.map(async (l) => {
        if (l.takenBy !== undefined) return;
        try {
          const holder = String(await this.opts.redis.run(TAKE, [l.key], [this.opts.redis.instanceId, this.opts.ttlMs]));
          if (holder === '') {
            if (l.renewedAt !== 0 && this.lapsed(l))
              this.log.info({ network: l.network, wallet: l.wallet }, 'wallet lease taken again after it lapsed (nobody else took it): sponsorship resumes');
            l.renewedAt = this.opts.clock.now();
            this.reported.delete(l.network);
          } else {
            l.takenBy = holder;
            if (l.renewedAt !== 0)
              this.log.error(
                { network: l.network, wallet: l.wallet, holder },
                'wallet lease lost: another instance holds this DUST wallet now; sponsorship on this network stops (503 WALLET_LEASE_LOST)',
              );
          }
        } catch {
          // Not renewed this round; `check` refuses once the lease may have expired.
        }
      }),
    );
    this.reportExpired();
  }

  private lapsed(l: Lease): boolean {
    return this.opts.clock.now() - l.renewedAt >= this.opts.ttlMs;
  }

  private reportExpired(): void {
    for (const l of this.leases) {
      if (l.takenBy === undefined && l.renewedAt !== 0 && this.lapsed(l) && !this.reported.has(l.network)) {
        this.reported.add(l.network);
        this.log.error(
          { network: l.network, wallet: l.wallet, lastRenewedMsAgo: this.opts.clock.now() - l.renewedAt },
          'wallet lease expired (not renewed in time): sponsorship on this network stops (503 WALLET_LEASE_LOST) until it is taken again',
        );
      }
    }
  }

  /** Throws 503 WALLET_LEASE_LOST unless every wallet lease of `network` is held now. */
  check(network: string): void {
    for (const l of this.leases) {
      if (l.network !== network) continue;
      if (l.takenBy !== undefined)
        throw new GatewayError(
          'WALLET_LEASE_LOST',
          `another instance (${l.takenBy}) holds the lease on a DUST wallet of ${network}; this instance no longer sponsors there`,
          { headers: { 'Retry-After': '30' } },
        );
      if (l.renewedAt === 0 || this.lapsed(l))
        throw new GatewayError(
          'WALLET_LEASE_LOST',
          `the lease on a DUST wallet of ${network} is not held now (not yet taken, or not renewed in time); retry shortly`,
          { headers: { 'Retry-After': '5' } },
        );
    }
  }

  status(): Array<{ network: string; wallet: string; held: boolean; takenBy: string | null }> {
    return this.leases.map((l) => ({
      network: l.network,
      wallet: l.wallet,
      held: l.takenBy === undefined && l.renewedAt !== 0 && !this.lapsed(l),
      takenBy: l.takenBy ?? null,
    }));
  }

  /** Gives back every lease we hold (shutdown). */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.opts.redis.available) return;
    await Promise.all(this.leases.map((l) => this.opts.redis.run(GIVE_BACK, [l.key], [this.opts.redis.instanceId]).catch(() => undefined)));
  }
}
