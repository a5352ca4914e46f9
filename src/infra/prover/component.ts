/**
 * The proving component as other features see it: the backend that answers for a network. The
 * proving feature registers it (src/features/proving/); sponsorship proves a whole transaction
 * through the same backend (src/infra/prover/proving-port.ts).
 */
import type { Component } from '../app-context.js';
import type { NetworkName } from '../../core/config/index.js';
import type { ProverBackend } from './backend.js';

export const PROVER_COMPONENT = 'prover';

export interface ProverBackends extends Component {
  /** The backend answering for a network. */
  backend(network: NetworkName): ProverBackend;
}
