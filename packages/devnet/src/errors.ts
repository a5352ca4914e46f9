// Errors raised by the embedded devnet. Every error carries a stable code and the HTTP status the
// devnet's own endpoints answer with; the message is what a person needs to act on (for rejected
// transactions: the ledger's own reason, verbatim).
export const DevnetErrorCode = {
  BAD_OPTIONS: 'DEVNET_BAD_OPTIONS',
  TX_MALFORMED: 'DEVNET_TX_MALFORMED',
  TX_NOT_FINALIZED: 'DEVNET_TX_NOT_FINALIZED',
  TX_REJECTED: 'DEVNET_TX_REJECTED',
  TX_DUPLICATE: 'DEVNET_TX_DUPLICATE',
  /** A transaction of the other ledger era than the network runs at its tip. */
  LEDGER_ERA_MISMATCH: 'DEVNET_LEDGER_ERA_MISMATCH',
  FAUCET_BAD_ADDRESS: 'DEVNET_FAUCET_BAD_ADDRESS',
  FAUCET_BAD_AMOUNT: 'DEVNET_FAUCET_BAD_AMOUNT',
  BAD_REQUEST: 'DEVNET_BAD_REQUEST',
  BODY_TOO_LARGE: 'DEVNET_BODY_TOO_LARGE',
  NOT_FOUND: 'DEVNET_NOT_FOUND',
  UNAUTHORIZED: 'DEVNET_UNAUTHORIZED',
  METHOD_NOT_ALLOWED: 'DEVNET_METHOD_NOT_ALLOWED',
  NOT_SERVED: 'DEVNET_NOT_SERVED',
  /** Older than the indexer's retained history, on a devnet without a state directory. */
  PRUNED: 'DEVNET_PRUNED',
  STATE_MISMATCH: 'DEVNET_STATE_MISMATCH',
  CLOSED: 'DEVNET_CLOSED',
  INTERNAL: 'DEVNET_INTERNAL',
} as const;

export type DevnetErrorCode = (typeof DevnetErrorCode)[keyof typeof DevnetErrorCode];

export class DevnetError extends Error {
  readonly code: DevnetErrorCode;
  readonly status: number;
  /** Fields the error's JSON body carries beside `error` and `code` (e.g. a node's rejection code). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: DevnetErrorCode, status: number, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DevnetError';
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** The message of anything thrown, ledger WASM errors included (they are plain `Error`s). */
export function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
