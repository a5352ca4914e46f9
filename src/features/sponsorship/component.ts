/** The sponsorship feature's component, as the rest of the feature and the app see it. */
import type { Component } from '../../infra/app-context.js';
import type { SponsorshipService } from './sponsorship.js';

export const SPONSORSHIP_COMPONENT = 'sponsorship';

export interface SponsorshipComponent extends Component {
  /** Undefined when balancing is disabled. */
  readonly service: SponsorshipService | undefined;
}
