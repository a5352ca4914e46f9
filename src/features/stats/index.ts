/**
 * The network statistics API (docs/DESIGN.md, "One request per feature"): for each network served, a
 * chain follower feeding pre-rendered derived routes, cached indexer lookups, a health
 * component, and a WebSocket topic that pushes the summary on every new block.
 */
import type { AppContext, Component, Module } from '../../infra/app-context.js';
import type { UnservedStats } from './component.js';
import { NETWORKS } from '../../core/config/index.js';
import { NetworkStats, summaryTopic } from './network-stats.js';
import { sourceOf } from '../../infra/indexer/source.js';
import { GatewayError } from '../../core/errors.js';
import { PUSH_CHANNEL_DOC, statsRoutes } from './routes.js';

export { collectStats } from './metrics.js';

export const mountStats: Module = (ctx) => {
  const log = ctx.logger.child({ module: 'stats' });
  const nets = new Map<string, NetworkStats>();
  for (const network of NETWORKS) {
    const source = sourceOf(ctx, network);
    if (!source) {
      // An embedded network whose devnet is not running (e.g. started with devnet disabled).
      log.warn({ network }, 'no devnet runs for this embedded network: its statistics are not served');
      const unserved: UnservedStats = { name: `stats:${network}`, health: () => ({ status: 'disabled', reason: 'embedded devnet not running' }) };
      ctx.addComponent(unserved);
      continue;
    }
    const stats = new NetworkStats(ctx, network, source);
    nets.set(network, stats);
    ctx.addComponent(stats);
  }
  ctx.addRoutes(statsRoutes(nets));
  ctx.addTopic({
    url: '/api/v1/:network/ws',
    // Refused as the routes refuse it: UNKNOWN_NETWORK, saying when the network exists but is not served here.
    topicFor: (params) => {
      const name = params['network']!;
      if (nets.has(name)) return summaryTopic(name);
      return new GatewayError('UNKNOWN_NETWORK', (NETWORKS as readonly string[]).includes(name) ? `Network ${name} is not served by this instance` : undefined);
    },
    doc: PUSH_CHANNEL_DOC,
    known: NETWORKS.map((network) => ({ network })),
    welcome: (topic) => {
      const network = [...nets.keys()].find((n) => summaryTopic(n) === topic);
      return network === undefined ? undefined : nets.get(network)!.views.summaryText(ctx.clock.now());
    },
  });
  // Sponsorship refuses to price fees on a stale chain, as these followers judge it.
  const link = judgeSponsorshipChains(ctx, (network, now) => nets.get(network)?.staleReason(now));
  for (const stats of nets.values()) {
    stats.follower.on('blocks', link);
    stats.follower.on('state', link);
  }
  // Followers start once everything is mounted; the first data arrives while the server starts listening.
  for (const stats of nets.values()) stats.start();
};

/** The sponsorship module's component (SPONSORSHIP_COMPONENT), by name and by what this uses of it: a feature imports no other. */
const SPONSORSHIP = 'sponsorship';
type StaleChainJudge = (network: string, now: number) => string | undefined;
interface JudgedSponsorship extends Component {
  service?: { judgeChainsBy(judge: StaleChainJudge): void } | undefined;
}

/**
 * Hands `judge` to the sponsorship service (SponsorshipService.judgeChainsBy). Sponsorship mounts
 * after statistics, so this tries until it is there: at once, and whenever a follower has news —
 * before a follower's first block there is no chain to judge. Without the sponsorship module, or
 * with balancing disabled, there is nothing to hand it to. The returned function is the attempt.
 */
function judgeSponsorshipChains(ctx: AppContext, judge: StaleChainJudge): () => void {
  let done = false;
  const attempt = (): void => {
    if (done) return;
    const sponsorship = ctx.component<JudgedSponsorship>(SPONSORSHIP);
    if (sponsorship === undefined) return;
    done = true;
    sponsorship.service?.judgeChainsBy(judge);
  };
  attempt();
  return attempt;
}
