/** The statistics feature's component `stats:<network>`, as the rest of the feature and the app see it. */
import type { Component } from '../../infra/app-context.js';
import type { NetworkStats } from './network-stats.js';

/** What an embedded network whose devnet does not run registers as `stats:<network>`: no statistics, and why. */
export interface UnservedStats extends Component {
  health(): { status: 'disabled'; reason: string };
}

/** The component `stats:<network>`. */
export type StatsComponent = NetworkStats | UnservedStats;
