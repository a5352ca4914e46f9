/**
 * POST /prove-and-balance, POST /balance-only (API key, octet-stream in, JSON out) and
 * GET /wallet-status. Every status they answer is documented here and so in the OpenAPI document.
 */
import { performance } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { NETWORKS, type NetworkName } from '../../core/config/index.js';
import { GatewayError, toGatewayError } from '../../core/errors.js';
import type { Metrics } from '../../infra/metrics/metrics.js';
import { sponsoredSummary } from './audit.js';
import { json, OCTET, JSON_TYPE, type RequestContext, type RouteDef } from '../../core/http/route.js';
import { networkOf } from '../../core/http/network-of.js';
import type { SponsorKind } from './common/balance-task.js';
import type { SponsorshipService } from './sponsorship.js';

export const SponsoredSchema = Type.Object({
  tx: Type.String({ description: 'The balanced, proven and bound transaction, hex: submit it to the network', pattern: '^[0-9a-f]+$' }),
  txHash: Type.String({ description: 'Hash of `tx` (Transaction.transactionHash)', pattern: '^[0-9a-f]{64}$' }),
  identifiers: Type.Array(Type.String(), { description: 'Transaction identifiers of `tx`' }),
  network: Type.Union(NETWORKS.map((n) => Type.Literal(n))),
  fee: Type.String({ description: 'DUST fee paid by the server wallet, in SPECK (decimal)' }),
  feeUnit: Type.Literal('SPECK'),
  expiresAt: Type.String({ format: 'date-time', description: 'The fee intent expires then: submit before' }),
  dustUtxo: Type.Object({ wallet: Type.Integer(), slot: Type.Integer() }, { description: 'Which server DUST UTXO pays (for support requests)' }),
});

const WalletStatusSchema = Type.Record(
  Type.String(),
  Type.Object({
    sync: Type.Object(
      {
        phase: Type.String(),
        era: Type.Optional(
          Type.Union([Type.Literal(8), Type.Literal(9), Type.Null()], {
            description: "The ledger era the wallets are synced in (the chain's, from its events' protocol version); null before the chain has said",
          }),
        ),
        eraSwitches: Type.Optional(
          Type.Integer({ description: 'Times the wallets started afresh because the chain changed era (their old-era UTXOs are then SPENT)' }),
        ),
      },
      { additionalProperties: true },
    ),
    balance: Type.String({ description: 'Spendable DUST of the server wallets now, SPECK' }),
    balanceUnit: Type.Literal('SPECK'),
    wallets: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          balance: Type.String({ description: 'Spendable DUST of this wallet, SPECK' }),
          utxos: Type.Integer({ description: 'Its DUST UTXOs' }),
          address: Type.Optional(Type.String({ description: 'Its NIGHT address (Bech32m): send NIGHT here to back its DUST' })),
          dustAddress: Type.Optional(Type.String({ description: 'Its DUST address (Bech32m)' })),
          night: Type.Optional(Type.String({ description: 'Unspent NIGHT at its address, STAR' })),
          nightUtxos: Type.Optional(Type.Integer()),
          idleNightUtxos: Type.Optional(
            Type.Integer({
              description: 'Its NIGHT UTXOs from before its registration, which generate no DUST until spent again (the pool keeper splits them)',
            }),
          ),
          registered: Type.Optional(
            Type.Boolean({ description: 'Its NIGHT key is registered for DUST generation (false while it holds no NIGHT): `nightgate wallet register`' }),
          ),
          problem: Type.Optional(
            Type.Union([Type.Null(), Type.Literal('no NIGHT'), Type.Literal('unregistered')], {
              description: 'What keeps it from generating DUST, if anything',
            }),
          ),
        },
        { description: 'Each server wallet; the address fields appear once the pool keeper has read them (once a block)' },
      ),
    ),
    walletsReadAt: Type.Optional(Type.Union([Type.Null(), Type.String({ format: 'date-time' })])),
    fees: Type.Union([
      Type.Null(),
      Type.Object(
        {
          atHeight: Type.Integer({ description: 'The tip block the wallets last read the prices at' }),
          prices: Type.Object({
            overall: Type.Number({ description: 'overallPrice: the price of a full block in an average cost dimension' }),
            read: Type.Number({ description: 'readFactor: the price factor of time spent reading from disk' }),
            compute: Type.Number({ description: 'computeFactor: the price factor of single-threaded compute time' }),
            blockUsage: Type.Number({ description: 'blockUsageFactor: the price factor of block usage' }),
            write: Type.Number({ description: 'writeFactor: the price factor of time spent writing to disk' }),
          }),
        },
        {
          description:
            "The fee prices of the tip's ledger parameters (LedgerParameters.feePrices), which the wallets price each fee from (with " +
            "its margin); null until they are read in the wallets' era",
        },
      ),
    ]),
    utxos: Type.Object({ free: Type.Integer(), reserved: Type.Integer(), spent: Type.Integer(), total: Type.Integer() }),
    reclaimTimers: Type.Integer(),
    backlog: Type.Object({
      blocks: Type.Number({
        description: "Blocks that this server's answered sponsorships not yet landed fill, at the running estimate of a transaction's share of a block",
      }),
      limitBlocks: Type.Integer({
        description: 'Past this backlog new sponsorships are refused (503 SPONSOR_BACKLOG_FULL): a fee intent answered then would expire before its turn',
      }),
      landed: Type.Integer({ description: 'Answered sponsorships whose transactions landed, since start' }),
      expiredUnlanded: Type.Integer({
        description: 'Answered sponsorships whose fee intents expired before their transactions landed (not submitted, or submitted too late), since start',
      }),
    }),
    walletStateBytes: Type.Integer({
      description: "Size of the server wallets' serialized DUST state, which every worker decodes; it grows with the network's DUST commitments",
    }),
    prover: Type.String(),
    pool: Type.Union([
      Type.Null(),
      Type.Object(
        {
          target: Type.Integer({ description: 'dust.targetUtxos: DUST UTXOs the keeper keeps on this network' }),
          live: Type.Integer({ description: 'DUST UTXOs held now, free or reserved' }),
          filling: Type.Boolean({ description: 'Growing to the target from start (dust.growAtStart): /readyz answers 503 until it is reached' }),
          maintenance: Type.Object({
            state: Type.Union(
              ['idle', 'splitting', 'waiting', 'unavailable', 'failing'].map((s) => Type.Literal(s)),
              { description: 'splitting: a round is building and submitting splits; waiting: splits submitted, not yet landed or expired' },
            ),
            reason: Type.Union([Type.String(), Type.Null()]),
            pendingSplits: Type.Integer(),
            splitsSubmitted: Type.Integer(),
            splitsFailed: Type.Integer(),
            lastRoundAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          }),
          sustainableTxPerSecond: Type.Number({ description: 'At best: each UTXO pays once per two blocks (inclusion, then the sync of that block)' }),
        },
        {
          description:
            "The pool keeper: when fewer than half of the UTXOs are free and fewer than target are held, splits the wallets' NIGHT " +
            'into more DUST-generating UTXOs (embedded devnet)',
        },
      ),
    ]),
  }),
);

const QUERY = Type.Object({
  network: Type.Optional(
    Type.Union(
      NETWORKS.map((n) => Type.Literal(n)),
      { description: 'Network (or header X-Midnight-Network); default prover.defaultNetwork' },
    ),
  ),
});

const DESCRIPTIONS: Record<SponsorKind, { summary: string; body: string; wrong: string }> = {
  'prove-and-balance': {
    summary: 'Add a DUST fee paid by the server, prove everything, bind: users pay no gas',
    body: 'An unproven serialized transaction (`midnight:transaction[v9](signature[v1],proof-preimage,embedded-fr[v1]):…`)',
    wrong: 'not an unproven transaction (e.g. "expected an unproven transaction, got a finalized one")',
  },
  'balance-only': {
    summary: 'Add a proven, bound DUST fee part paid by the server to an already proven transaction',
    body: 'A proven serialized transaction, bound or not (`…(signature[v1],proof,pedersen-schnorr[v1]):…`)',
    wrong: 'not a proven transaction (e.g. "expected a proven transaction or a finalized transaction, got an unproven one")',
  },
};

interface SponsorshipRouteDeps {
  /** Undefined when balancing is disabled in config: the routes answer 404. */
  service: SponsorshipService | undefined;
  defaultNetwork: NetworkName;
  bodyLimit: number;
  /** Sponsorships by outcome, fees paid, durations (/metrics). */
  metrics?: Metrics | undefined;
  /** One audit line per sponsorship: key id, network, txHash, fee, UTXO, outcome. */
  audit?: Logger | undefined;
}

function disabled(): never {
  throw new GatewayError('BALANCING_DISABLED');
}

export function sponsorshipRoutes(deps: SponsorshipRouteDeps): RouteDef[] {
  const route = (kind: SponsorKind): RouteDef => ({
    method: 'POST',
    url: `/${kind}`,
    auth: 'key',
    rateLimit: 'key',
    body: { limit: deps.bodyLimit, contentTypes: [OCTET] },
    readHeaders: ['x-midnight-network', 'x-client-id'],
    schema: {
      summary: DESCRIPTIONS[kind].summary,
      description:
        'Server-owned DUST wallets pay the fee. Before any DUST UTXO is reserved the transaction is checked as the ledger will ' +
        "check it (well-formed for the network at the tip's parameters, signatures, TTL neither expired, nor too close to land, " +
        "nor beyond the ledger's horizon, a real effect, no DUST spend of its own); the sponsored result is checked whole, " +
        'balance included, before it is answered. ' +
        'The fee covers the largest price rise of every block until `expiresAt` (docs/sponsorship.md, "What happens to a ' +
        'request"), so a transaction submitted before `expiresAt` is never short of fee. ' +
        'One key holds at most `dust.maxReservationsPerKey` DUST UTXOs of a network at once (in flight, or answered and not yet ' +
        "landed or reclaimed); its budget is charged per answer and refunded when an answer's reservation is reclaimed unspent. " +
        'The same bytes sent again by the same key within the dedupe window get the same answer and no second DUST UTXO (`X-Dedupe: HIT`). ' +
        "A key's policy (docs/policies.md) may narrow what it pays for — its dates, the kinds of effect and the contracts and " +
        "entry points a transaction may call, caps per end user, its owner's webhook — and refuses before anything is reserved, " +
        "naming the rule in the error's `rule`.",
      tags: ['sponsorship'],
      querystring: QUERY,
      headers: {
        'X-Midnight-Network': 'mainnet, preprod or preview (or ?network=)',
        'X-Client-ID': 'The end user, for a key whose policy counts users by it (`perUser.userFrom: "client-id"`)',
      },
      body: { contentType: OCTET, description: DESCRIPTIONS[kind].body },
      response: {
        200: {
          description: 'Sponsored: submit `tx`',
          schema: SponsoredSchema,
          headers: { 'X-Dedupe': 'HIT when this answer was given before for the same bytes, else MISS' },
        },
        400: {
          description:
            `The body is ${DESCRIPTIONS[kind].wrong} (WRONG_TRANSACTION_KIND), does not deserialize (INVALID_BODY), ` +
            `is refused by the ledger — built for another network, ` +
            `badly signed, expired or expiring within a block, TTL too far ahead, no effect, already paying its own DUST fee, ` +
            `unbalanced — (TRANSACTION_REJECTED, with the ledger's reason; nothing is reserved), the network is unknown ` +
            `(INVALID_NETWORK), or the key's policy counts users by X-Client-ID and it is missing (INVALID_PARAMETER)`,
        },
        401: { description: 'Missing or invalid API key' },
        403: {
          description:
            'The fee exceeds the per-transaction cap (FEE_CAP_EXCEEDED). Fee prices rise with full blocks and fall with empty ones, ' +
            "so the answer carries Retry-After (one block): the same transaction may fit later. Or the key's policy does not pay for " +
            'this transaction (POLICY_DENIED, `rule` names the rule: validFrom — with Retry-After —, validUntil, allow.contracts, ' +
            'allow.deploys, allow.nightTransfers, allow.shielded, allow.dustRegistrations, perUser, webhook; nothing is reserved)',
        },
        404: { description: 'Balancing is disabled on this server, or not configured for this network (BALANCING_DISABLED)' },
        409: {
          description:
            'An unshielded input of the transaction is spent by another sponsored transaction that has not landed or expired yet ' +
            '(INPUT_HELD: the message names the input, intent hash # output number, and until when it is held at the latest; ' +
            'Retry-After to then; nothing is reserved). Every key, on every instance, is refused a different transaction spending a ' +
            'held input; the same bytes again from the same key get the first answer (X-Dedupe: HIT). Or the network changed ledger ' +
            'era during the request (LEDGER_ERA_CHANGED; its reservation is released): rebuild the transaction for the new era',
        },
        413: { description: 'Body over the limit' },
        415: { description: 'Content-Type is not application/octet-stream' },
        429: {
          description:
            'Rate limit (RATE_LIMITED), DUST budget of this key (DUST_BUDGET_EXCEEDED) exceeded, this key already holds its share of ' +
            'the DUST pool (RESERVATION_LIMIT: one is freed when one of its transactions lands or its reservation expires), or the ' +
            "end user has had what the key's policy pays per user in the window (USER_LIMIT, `rule` perUser.maxSponsorships or " +
            "perUser.maxDust, Retry-After to the window's end); see Retry-After",
        },
        500: { description: 'Proving failed (PROVER_FAILED) or a worker crashed (WORKER_CRASHED)' },
        502: { description: 'The proof server could not be reached or answered garbage' },
        503: {
          description:
            "The key's policy webhook did not answer and its policy says reject (POLICY_WEBHOOK_UNAVAILABLE, Retry-After: 5, nothing reserved). " +
            "Wallet still syncing (WALLET_SYNCING, Retry-After: 30), the network's newest block is 10 block times old or more, so the " +
            'fee would be priced on old state (CHAIN_STALE, Retry-After: one block, nothing reserved; docs/operations.md#health), no ' +
            "DUST UTXO free (NO_DUST_AVAILABLE), this server's answered transactions that have not landed already fill the blocks a " +
            'new fee intent would live through (SPONSOR_BACKLOG_FULL, Retry-After: the time that excess takes to drain, nothing ' +
            'reserved; docs/sponsorship.md#capacity), the fee did not settle while the pool or the prices moved (FEE_UNSETTLED, ' +
            "nothing reserved), queue full (QUEUE_FULL), or this key's tasks fill its part of it while other keys' are still taken " +
            '(KEY_QUEUE_FULL), prover busy (PROVER_BUSY); see Retry-After. With several instances (`state.redisUrl`): the shared ' +
            "state (Redis) is unavailable, so the key's budget cannot be charged exactly (BUDGET_UNAVAILABLE, Retry-After: 5; nothing " +
            'is reserved or charged), or this instance does not hold the lease on its DUST wallets of that network now ' +
            '(WALLET_LEASE_LOST). Or the server is shutting down (SHUTTING_DOWN): a sponsorship still queued is refused at once ' +
            '("The server is shutting down; the sponsorship was not started") and holds no DUST reservation; one under way past the ' +
            'shutdown deadline ends with "Server shut down before the request finished" and its reservation is released',
        },
      },
    },
    handler: async (ctx: RequestContext) => {
      const service = deps.service ?? disabled();
      const network = networkOf(ctx, deps.defaultNetwork);
      const t0 = performance.now();
      let answer;
      try {
        answer = await service.sponsor(kind, network, ctx.key!, ctx.body!, ctx.signal, ctx.headers['x-client-id']);
      } catch (err) {
        const code = toGatewayError(err).code;
        deps.metrics?.sponsorships.inc({ network, kind, outcome: code });
        deps.audit?.info({ audit: 'sponsorship', keyId: ctx.key!.id, kind, network, outcome: code, ms: Math.round(performance.now() - t0) }, 'sponsorship');
        throw err;
      }
      const summary = sponsoredSummary(answer.body);
      const outcome = answer.deduplicated ? 'deduplicated' : 'sponsored';
      deps.metrics?.sponsorships.inc({ network, kind, outcome });
      deps.metrics?.sponsorshipSeconds.observe({ network, kind }, (performance.now() - t0) / 1000);
      // A repeat pays nothing more: the fee was paid (and counted) once.
      if (summary && !answer.deduplicated) deps.metrics?.sponsorshipFees.inc({ network }, Number(summary.fee));
      deps.audit?.info(
        {
          audit: 'sponsorship',
          keyId: ctx.key!.id,
          kind,
          network,
          outcome,
          txHash: summary?.txHash,
          fee: summary?.fee,
          feeUnit: 'SPECK',
          dustUtxo: summary?.dustUtxo,
          ms: Math.round(performance.now() - t0),
        },
        'sponsorship',
      );
      return {
        body: answer.body,
        contentType: JSON_TYPE,
        headers: { 'X-Dedupe': answer.deduplicated ? 'HIT' : 'MISS', 'X-Midnight-Network': network, 'Cache-Control': 'no-store' },
      };
    },
  });
  return [
    route('prove-and-balance'),
    route('balance-only'),
    {
      method: 'GET',
      url: '/wallet-status',
      auth: 'key',
      rateLimit: 'key',
      schema: {
        summary: 'Server DUST wallets per network: balance, free/reserved/spent UTXOs, sync state, fee prices',
        tags: ['sponsorship'],
        response: {
          200: { description: 'Per network', schema: WalletStatusSchema },
          401: { description: 'Missing or invalid API key' },
          404: { description: 'Balancing is disabled (BALANCING_DISABLED)' },
        },
      },
      handler: () => json((deps.service ?? disabled()).status(), 200, { 'Cache-Control': 'no-store' }),
    },
  ];
}
