/**
 * What a feature module (statistics, proving, sponsorship) gets from the app: configuration,
 * logging, time, the embedded devnet if one runs, and ways to mount routes, push topics and
 * components. Modules never see uWS.
 */
import type { KeyStore } from '../core/guards/auth.js';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Config, NetworkName } from '../core/config/index.js';
import type { RouteDef } from '../core/http/route.js';
import type { TopicRoute } from '../core/http/server.js';
import type { Metrics } from './metrics/metrics.js';
import type { SharedState } from './state/index.js';

/**
 * The endpoints of a network the embedded devnet serves, as the app hands them to features (the
 * devnet reports them, and more, when the network starts; the app, which starts it, passes them on).
 */
export interface DevnetEndpoints {
  readonly name: string;
  /** The ledger's network id, which addresses are encoded with. */
  readonly networkId: string;
  readonly graphqlUrl: string;
  readonly graphqlWsUrl: string;
  readonly submitUrl: string;
  readonly faucetUrl: string;
  /** The devnet's node RPC (`author_submitExtrinsic`). */
  readonly nodeRpcUrl: string;
  /** `public`: it wants the network's project id, takes transactions through the node RPC only, and has no faucet. */
  readonly profile: 'default' | 'public';
}

type ComponentStatus = 'ok' | 'degraded' | 'down' | 'starting' | 'disabled';

export interface ComponentHealth {
  status: ComponentStatus;
  [detail: string]: unknown;
}

export interface Component {
  name: string;
  health(): ComponentHealth;
  /**
   * Called once when shutdown begins, right after the server stops accepting and before in-flight
   * requests are awaited, in reverse registration order: refuse at once what is queued but not
   * started (503 SHUTTING_DOWN, saying so) and anything new; let running work finish.
   */
  drain?(): void;
  /** Called once at shutdown, after in-flight requests drained (or the deadline passed), in reverse registration order. */
  close?(): Promise<void>;
  /**
   * Readiness (/readyz): what this component still lacks before the server can serve what the
   * configuration asks of it, one short phrase each (no URLs: the answer is public); empty when ready.
   */
  ready?(): readonly string[] | Promise<readonly string[]>;
}

export interface AppContext {
  readonly config: Readonly<Config>;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Per network served by the embedded devnet: its endpoints. */
  readonly devnet: ReadonlyMap<NetworkName, DevnetEndpoints>;
  /** Each network's server wallets (`WalletKeys`: secrets), none where it cannot sponsor. */
  readonly serverWallets: ReadonlyMap<NetworkName, readonly string[]>;
  /** The app's Prometheus registry, where each feature registers its own series (its `MetricsCollector`). */
  readonly metrics: Metrics;
  /** The API keys as configured now (replaced whole on a reload). */
  readonly keys: KeyStore;
  /** The state shared with other instances through Redis (`state.redisUrl`); undefined: this process alone. */
  readonly state?: SharedState | undefined;
  /** What the worker pool runs: the thread entry and each feature's task modules. */
  readonly workers: WorkerModules;
  addRoutes(routes: readonly RouteDef[]): void;
  addTopic(topic: TopicRoute): void;
  publish(topic: string, message: string): void;
  addComponent(c: Component): void;
  /** Another module's component, by name (e.g. the sponsorship module uses the prover pool). */
  component<T extends Component>(name: string): T | undefined;
}

export type Module = (ctx: AppContext) => void | Promise<void>;

/** The worker pool's code, as the app hands it over: the pool itself knows no task. */
export interface WorkerModules {
  /** Loaded by each thread as it starts. */
  readonly entry: URL;
  /** Task name → its module (infra/pool/tasks.ts `TaskModules`). */
  readonly tasks: { readonly [task: string]: URL | undefined };
}

/**
 * A feature's /metrics series: registers them on `ctx.metrics` once and sets them at each scrape
 * from the feature's components. The app calls every feature's collector when metrics are on,
 * whether or not the feature is mounted, so the exposition always names the same series.
 */
export type MetricsCollector = (ctx: AppContext) => void;
