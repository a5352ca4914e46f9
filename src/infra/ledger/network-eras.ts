/**
 * The ledger era each network runs, on the main thread: one registry every module reads (proving
 * picks its mock proofs and `/proof-versions` by it, sponsorship its ledger) and whatever follows
 * the chain writes (`set` when a block's `protocolVersion` says another era). It starts from what
 * the configuration knows: an embedded devnet runs `networks.<n>.devnet.ledger`; a network behind
 * another indexer is assumed to run ledger 9, as every public network does, until its chain says
 * otherwise.
 *
 * Shared as the app component `ledger` (`networkEras(ctx)` makes it on first use), whose health
 * names the ledger package and version each network is read with.
 */
import { EventEmitter } from 'node:events';
import type { AppContext, Component, ComponentHealth } from '../app-context.js';
import type { Config, NetworkName } from '../../core/config/index.js';
import { DEFAULT_ERA, LEDGER_PACKAGES, type Era } from '@nightgate/ledger/era';

const NETWORK_ERAS = 'ledger';

/** Why a prerelease package is in use, as `/health` says it. */
const PRERELEASE_NOTE =
  'release candidate: the final ledger-v9 package is not on the registry; a DUST spend built with it may not prove against ' +
  'proof server 9.0.x keys (its DUST-spend circuit changed after this candidate)';

interface EraChange {
  network: NetworkName;
  from: Era;
  to: Era;
}

/** The era a network starts in, from the configuration alone. */
function configuredEra(config: Pick<Config, 'networks'>, network: NetworkName): Era {
  const net = config.networks[network];
  return net.indexer === 'embedded' ? net.devnet.ledger : DEFAULT_ERA;
}

/** What `/health` says of an era's package. */
export function ledgerPackageReport(era: Era): Record<string, unknown> {
  const p = LEDGER_PACKAGES[era];
  return { era, package: p.name, version: p.version, ...(p.prerelease ? { prerelease: true, note: PRERELEASE_NOTE } : {}) };
}

export class NetworkEras extends EventEmitter<{ change: [EraChange] }> implements Component {
  readonly name = NETWORK_ERAS;
  readonly #eras = new Map<NetworkName, Era>();
  /** Networks whose chain has said its era (not only the configuration). */
  readonly #confirmed = new Set<NetworkName>();

  constructor(initial: Iterable<readonly [NetworkName, Era]>) {
    super();
    for (const [n, era] of initial) this.#eras.set(n, era);
  }

  static fromConfig(config: Pick<Config, 'networks'>): NetworkEras {
    const names = Object.keys(config.networks) as NetworkName[];
    return new NetworkEras(names.map((n) => [n, configuredEra(config, n)] as const));
  }

  /** The era a network runs now. */
  of(network: NetworkName): Era {
    return this.#eras.get(network) ?? DEFAULT_ERA;
  }

  /**
   * The chain says `network` runs `era` (from a block's or transaction's protocol version). Eras
   * only move forward on a chain: once it has said one, an older era is a reader still behind the
   * switch (the statistics follow the tip, the DUST sync its events, a block or two apart around
   * a switch) and is ignored, so the era does not flap between the two. Before the chain has
   * said anything, the configured guess gives way to whatever it says.
   */
  set(network: NetworkName, era: Era): void {
    const from = this.of(network);
    if (this.#confirmed.has(network) && era < from) return;
    this.#confirmed.add(network);
    this.#eras.set(network, era);
    if (from !== era) this.emit('change', { network, from, to: era });
  }

  /** Every era some network runs now. */
  eras(): Era[] {
    return [...new Set(this.#eras.values())].sort();
  }

  health(): ComponentHealth {
    const networks: Record<string, unknown> = {};
    for (const [n, era] of this.#eras) networks[n] = ledgerPackageReport(era);
    return { status: 'ok', networks };
  }
}

/** The app's registry: the one a module registered before, or a new one from the configuration. */
export function networkEras(ctx: Pick<AppContext, 'config' | 'component' | 'addComponent'>): NetworkEras {
  const known = ctx.component<NetworkEras>(NETWORK_ERAS);
  if (known) return known;
  const made = NetworkEras.fromConfig(ctx.config);
  ctx.addComponent(made);
  return made;
}
