/**
 * POST /submit (API key): a finalized transaction to its network's node, through the server's one
 * submitter (src/infra/node/submitter.ts), so a client lands what it was answered without node
 * credentials of its own. Nothing is stored; the node's refusals are answered as the submitter
 * maps them. The typed client's `submit` calls it.
 */
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { NETWORKS, type NetworkName } from '../../core/config/index.js';
import { GatewayError, toGatewayError } from '../../core/errors.js';
import { json, OCTET, type RequestContext, type RouteDef } from '../../core/http/route.js';
import { networkOf } from '../../core/http/network-of.js';
import type { Submitter } from '../../infra/node/submitter.js';

const TX_TAG = Buffer.from('midnight:transaction[');

const SubmittedSchema = Type.Object(
  {
    network: Type.Union(NETWORKS.map((n) => Type.Literal(n))),
    extrinsicHash: Type.Union([Type.String(), Type.Null()], {
      description: "The node's hash of the extrinsic that carries the transaction (null from a relay, or when the node had it already)",
    }),
    alreadyKnown: Type.Boolean({ description: 'The node had the same transaction already (1013): it is in its pool all the same' }),
  },
  { $id: 'Submitted' },
);

interface SubmitRouteDeps {
  submitters: ReadonlyMap<NetworkName, Submitter>;
  defaultNetwork: NetworkName;
  bodyLimit: number;
  audit?: Logger | undefined;
}

export function submitRoute(deps: SubmitRouteDeps): RouteDef {
  return {
    method: 'POST',
    url: '/submit',
    auth: 'key',
    rateLimit: 'key',
    body: { limit: deps.bodyLimit, contentTypes: [OCTET] },
    readHeaders: ['x-midnight-network'],
    schema: {
      summary: "Submit a finalized transaction to the network's node",
      description:
        "Sends the transaction (e.g. a sponsorship's `tx`) to the network's node as `author_submitExtrinsic`, with the server's " +
        'credentials, and answers once the node has taken it into its pool: it lands in a coming block unless the chain refuses ' +
        'it there. Follow it with GET /api/v1/{network}/transaction?hash=.',
      tags: ['sponsorship'],
      querystring: Type.Object({
        network: Type.Optional(
          Type.Union(
            NETWORKS.map((n) => Type.Literal(n)),
            { description: 'Network (or header X-Midnight-Network); default prover.defaultNetwork' },
          ),
        ),
      }),
      headers: { 'X-Midnight-Network': 'mainnet, preprod or preview (or ?network=)' },
      body: { contentType: OCTET, description: 'A finalized serialized transaction (`midnight:transaction[…](signature…,proof,…binding…):…`)' },
      response: {
        202: { description: 'The node took it', schema: SubmittedSchema },
        400: {
          description:
            'Not a transaction (INVALID_BODY), an unknown network (INVALID_NETWORK), or the node refused it and it will not land ' +
            "(NODE_REJECTED, with the node's code and reason)",
        },
        401: { description: 'Missing or invalid API key' },
        404: { description: 'No node to submit to on this network (NODE_UNAVAILABLE is 502; BALANCING_DISABLED when sponsorship is off)' },
        413: { description: 'Body over the limit' },
        415: { description: 'Content-Type is not application/octet-stream' },
        429: { description: 'Rate limit (RATE_LIMITED)' },
        502: {
          description:
            "The node could not be reached (NODE_UNAVAILABLE), answered garbage (NODE_BAD_RESPONSE), refused the server's credentials " +
            '(NODE_UNAUTHORIZED) or is decommissioned (NODE_DECOMMISSIONED)',
        },
        503: { description: "The node's pool did not take it now (NODE_BUSY, Retry-After)" },
      },
    },
    handler: async (ctx: RequestContext) => {
      const network = networkOf(ctx, deps.defaultNetwork);
      const submitter = deps.submitters.get(network);
      if (!submitter || submitter.unavailable) throw new GatewayError('NODE_UNAVAILABLE', submitter?.unavailable ?? `no node to submit to on ${network}`);
      const body = ctx.body!;
      if (body.length < TX_TAG.length || !Buffer.from(body.buffer, body.byteOffset, TX_TAG.length).equals(TX_TAG)) {
        throw new GatewayError('INVALID_BODY', 'the body is not a serialized transaction (midnight:transaction[…])');
      }
      try {
        const sent = await submitter.submit(body);
        deps.audit?.info(
          {
            audit: 'submission',
            keyId: ctx.key!.id,
            network,
            outcome: sent.alreadyKnown ? 'already-known' : 'submitted',
            via: sent.via,
            extrinsicHash: sent.extrinsicHash,
          },
          'submission',
        );
        return json({ network, extrinsicHash: sent.extrinsicHash ?? null, alreadyKnown: sent.alreadyKnown }, 202, {
          'X-Midnight-Network': network,
          'Cache-Control': 'no-store',
        });
      } catch (err) {
        deps.audit?.info({ audit: 'submission', keyId: ctx.key!.id, network, outcome: toGatewayError(err).code }, 'submission');
        throw err;
      }
    },
  };
}
