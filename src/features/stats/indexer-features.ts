/**
 * What the indexer behind one network supports, learnt from its schema with one introspection
 * request and kept until the connection to it is lost: the follower forgets it when its
 * subscription drops (the indexer may come back upgraded), and the next request asks again.
 * Until then every request uses the documents for these features (queries.ts), so a 4.3 indexer
 * is never sent a 4.4 field and a 4.4 indexer is read through its current fields.
 */
import type { Logger } from 'pino';
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../../core/errors.js';
import type { GraphqlHttpClient } from '../../infra/indexer/graphql-http.js';
import { BASELINE_FEATURES, FEATURES_PROBE, documentsFor, type FeatureDocuments, type IndexerFeatures } from './queries.js';
import { expectShape } from './upstream-types.js';

const ProbeData = Type.Object({
  regular: Type.Union([Type.Object({ fields: Type.Union([Type.Array(Type.Object({ name: Type.String() })), Type.Null()]) }), Type.Null()]),
  bridgeClaim: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
});

/** The features an answer to FEATURES_PROBE shows. */
export function featuresFromProbe(data: unknown): IndexerFeatures {
  const probe = expectShape(ProbeData, data, FEATURES_PROBE.name);
  const fields = new Set((probe.regular?.fields ?? []).map((f) => f.name));
  return { fee: fields.has('fee'), legacyFees: fields.has('fees'), bridgeClaims: probe.bridgeClaim !== null };
}

export class IndexerFeatureProbe {
  /** Probes sent, for health and tests. */
  probes = 0;
  private known: IndexerFeatures | undefined;
  private probing: Promise<IndexerFeatures> | undefined;
  /** Bumped by forget(): a probe answered after it describes the indexer before the loss. */
  private generation = 0;

  constructor(
    private readonly http: GraphqlHttpClient,
    private readonly log: Logger,
  ) {}

  /** What is known now; undefined before the first answer and after forget(). */
  get current(): IndexerFeatures | undefined {
    return this.known;
  }

  /** The indexer's features, asking it once if they are not known (concurrent callers share the request). */
  features(): Promise<IndexerFeatures> {
    if (this.known) return Promise.resolve(this.known);
    if (!this.probing) {
      const probing = this.probe().finally(() => {
        if (this.probing === probing) this.probing = undefined;
      });
      this.probing = probing;
    }
    return this.probing;
  }

  /** The documents for the indexer's features. */
  async documents(): Promise<FeatureDocuments> {
    return documentsFor(await this.features());
  }

  /** The connection was lost: the next request asks again. */
  forget(): void {
    this.known = undefined;
    // A probe in flight asked the indexer before the loss: later callers ask anew.
    this.probing = undefined;
    this.generation++;
  }

  private async probe(): Promise<IndexerFeatures> {
    const generation = this.generation;
    this.probes++;
    const features = await this.ask();
    if (generation === this.generation) this.known = features;
    return features;
  }

  /**
   * An indexer that refuses introspection (a GraphQL error, not an outage) is read with the
   * baseline documents, which every v4 indexer answers; an outage fails the caller's request.
   */
  private async ask(): Promise<IndexerFeatures> {
    try {
      const features = featuresFromProbe((await this.http.request(FEATURES_PROBE)).data);
      this.log.info(features, 'indexer features');
      return features;
    } catch (err) {
      if (!(err instanceof GatewayError) || err.code !== 'INDEXER_BAD_RESPONSE') throw err;
      this.log.warn({ err: err.message }, 'the indexer did not describe its schema: reading it with the baseline documents');
      return BASELINE_FEATURES;
    }
  }
}
