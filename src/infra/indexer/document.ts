/** A GraphQL document nightgate sends to a Midnight indexer (validated in tests against the real schema). */
export interface GqlDocument {
  /** The operation name, sent as `operationName`. */
  readonly name: string;
  readonly text: string;
}

/** Whitespace-folded document: the indexer bills by field, not bytes, but logs stay readable. */
export const gql = (name: string, text: string): GqlDocument => ({ name, text: text.replace(/\s+/g, ' ').trim() });
