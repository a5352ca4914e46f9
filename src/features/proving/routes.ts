/**
 * The proving routes. `/prove` and `/verify` are nightgate's API; `/check`, `/k`, `/version`,
 * `/ready` and `/proof-versions` make the root of nightgate a proof server address, so a wallet can
 * be pointed at it unchanged (midnight-js `httpClientProofProvider(url, zk, { headers })` appends
 * `/prove` and `/check` to its URL; wallet-sdk's client calls them at the root).
 *
 * Bodies are the proof server's own (application/octet-stream, built by the ledger's
 * `createProvingPayload` / `createCheckPayload`) and are walked before anything else runs: a body
 * that is not one gets 400 naming what is wrong. A body of a version nightgate does not read (a V3
 * preimage, a ZKIR v3 circuit: Compact 0.37) is not walked: a proof server backend (upstream,
 * native) is sent it unchanged (a /prove or /check result is cached as any other), an in-process
 * one refuses it with 400.
 * The network is `X-Midnight-Network` or `?network=`, else `prover.defaultNetwork`; its configured
 * backend answers, for the ledger era the network runs now. Both eras build these bodies with the
 * same tags and preimage version, so the era comes from the network, never from the body.
 */
import { performance } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { NETWORKS, type NetworkName } from '../../core/config/index.js';
import { GatewayError, isGatewayError, toGatewayError } from '../../core/errors.js';
import { NETWORK_HEADER, networkOf } from '../../core/http/network-of.js';
import { OCTET, type RequestContext, type Reply, type ResponseDoc, type RouteDef, type RouteSchema } from '../../core/http/route.js';
import type { Era } from '../../infra/ledger/index.js';
import type { ProverBackend, Relayed } from '../../infra/prover/backend.js';
import { WORKER_BODY_COST } from '../../core/guards/body-budget.js';
import type { ProofCounters } from './metrics.js';
import type { ProofResults } from './proof-results.js';
import { UnreadableVersion, WireError, checkIrSource, parseCheckRequest, parseProveRequest, type PreimageInfo } from './wire/wire.js';
import { clip } from '../../core/log/log.js';

interface ProverRoutesDeps {
  backendOf(network: NetworkName): ProverBackend;
  /** The ledger era a network runs now. */
  eraOf(network: NetworkName): Era;
  results: ProofResults;
  defaultNetwork: NetworkName;
  bodyLimit: number;
  /** Refuses a request for a network before its body is read (its backend's queue is full). */
  admit?: ((network: NetworkName, key: string | undefined) => GatewayError | undefined) | undefined;
  /** Proofs by outcome, wait and run time (/metrics). */
  metrics?: ProofCounters | undefined;
  /** One audit line per computed /prove and /verify: key id, circuit, backend, duration, cache. */
  audit?: Logger | undefined;
}

const PROVER_HEADERS = {
  'X-Prover': 'The backend that answered: upstream, native, wasm, or dev (mock-shaped proofs that never verify: embedded devnet only)',
  'X-Midnight-Network': 'The network whose prover answered',
  'X-Midnight-Ledger': 'The ledger era (8 or 9) of that network the answer is for',
};
const CACHED_HEADERS = {
  ...PROVER_HEADERS,
  'X-Cache': 'HIT when served from the 30 s result cache, MISS when computed (or shared with an identical request in flight)',
};
const RETRY = { 'Retry-After': 'Seconds to wait before retrying' };

function errorDocs(kind: 'compute' | 'relay'): Record<number, ResponseDoc> {
  const body: Record<number, ResponseDoc> =
    kind === 'compute'
      ? {
          413: { description: 'Body larger than server.proverBodyLimit (PAYLOAD_TOO_LARGE)' },
          415: { description: 'Content-Type is not application/octet-stream (UNSUPPORTED_MEDIA_TYPE)' },
        }
      : {};
  return {
    ...body,
    400: {
      description:
        kind === 'compute'
          ? "The body is not a request of this route's format, or (wasm, dev) is of a version the backend does not prove " +
            '(INVALID_BODY, naming what is wrong), the prover rejected it (PROVER_REJECTED, with its reason), the dev prover cannot ' +
            'mock this circuit (DEV_PROVER_UNSUPPORTED_CIRCUIT), or the network is unknown (INVALID_NETWORK)'
          : 'Unknown network (INVALID_NETWORK)',
    },
    401: { description: 'Missing or invalid API key (UNAUTHORIZED)' },
    429: { description: 'Rate limit of the API key exceeded (RATE_LIMITED)' },
    500: { description: 'The proof server failed (PROVER_FAILED), or a worker crashed and was replaced (WORKER_CRASHED): retry' },
    502: { description: 'The proof server could not be reached (PROVER_UNREACHABLE) or answered something that is not a result (PROVER_BAD_RESPONSE)' },
    503: {
      description:
        'Proving queue full (QUEUE_FULL), proof server busy (PROVER_BUSY), supervised proof server starting (PROVER_UNAVAILABLE), ' +
        'key material missing / failing its SHA-256 (PROVER_KEYS_MISSING: "prover key material not provisioned for <circuit>", ' +
        'PROVER_KEYS_INVALID), or the server is shutting down (SHUTTING_DOWN: work still queued is refused at once, "The server ' +
        'is shutting down; the proof was not started"; work under way past the shutdown deadline, "Server shut down before the ' +
        'request finished")',
      headers: RETRY,
    },
    504: { description: 'The proof server did not answer within prover.timeoutMs (PROVER_TIMEOUT)' },
  };
}

const querystring = Type.Object({
  network: Type.Optional(
    Type.Union(
      NETWORKS.map((n) => Type.Literal(n)),
      { description: 'Network whose prover answers (or header X-Midnight-Network); default prover.defaultNetwork' },
    ),
  ),
});
const headerDocs = { 'X-Midnight-Network': 'Network whose prover answers: mainnet, preprod or preview (or ?network=)' };

/** Every answer (errors included) says which backend and network produced it. */
function labelled(err: unknown, headers: Record<string, string>): GatewayError {
  const e = toGatewayError(err);
  const cause = isGatewayError(err) ? e.cause : err;
  return new GatewayError(e.code, e.message, { headers: { ...e.headers, ...headers }, ...(cause === undefined ? {} : { cause }) });
}

/**
 * Walk a body for `backend`: what the walk found, or undefined for a body of a version nightgate
 * does not read that goes to a proof server unchanged (`unread` is told which version it was).
 * An in-process backend refuses such a body, naming the version and what it proves instead.
 */
function validate<T>(parse: (b: Uint8Array) => T, body: Uint8Array, backend: ProverBackend, unread?: (version: string) => void): T | undefined {
  try {
    return parse(body);
  } catch (err) {
    if (err instanceof UnreadableVersion) {
      if (!backend.inProcessVersions) {
        unread?.(err.version);
        return undefined;
      }
      throw new GatewayError(
        'INVALID_BODY',
        `the body holds ${err.holds}; the ${backend.name} backend proves only ${err.reads}: ${err.version} needs a proof server (backend upstream or native)`,
      );
    }
    if (err instanceof WireError) throw new GatewayError('INVALID_BODY', err.message);
    throw err;
  }
}

type Handler = (ctx: RequestContext, backend: ProverBackend, network: NetworkName, era: Era) => Promise<Reply>;

/**
 * The backend's work on the request's body, which keeps the body charged to the body budget until
 * it settles: a worker task holds the body it was moved to until it ends, which may be after its
 * client left (the abort grace) or, for a shared result, after the request that started it ended.
 */
function holding<T>(ctx: RequestContext, work: Promise<T>): Promise<T> {
  ctx.holdBody?.(work);
  return work;
}

export function proverRoutes(deps: ProverRoutesDeps): RouteDef[] {
  const handle =
    (fn: Handler) =>
    async (ctx: RequestContext): Promise<Reply> => {
      const network = networkOf(ctx, deps.defaultNetwork);
      const backend = deps.backendOf(network);
      const era = deps.eraOf(network);
      const labels = { 'X-Prover': backend.name, 'X-Midnight-Network': network, 'X-Midnight-Ledger': String(era) };
      try {
        const reply = await fn(ctx, backend, network, era);
        return { ...reply, headers: { ...reply.headers, ...labels } };
      } catch (err) {
        throw labelled(err, labels);
      }
    };

  const computed =
    (kind: 'prove' | 'check', parse: (b: Uint8Array) => PreimageInfo): Handler =>
    async (ctx, backend, network, era) => {
      const body = ctx.body!;
      let preimage: string | undefined;
      const circuit = validate(parse, body, backend, (v) => {
        preimage = v;
      })?.keyLocation;
      const t0 = performance.now();
      let started = 0;
      const onStart = (): void => {
        started = performance.now();
      };
      // One line and one count per proof: no body, no key, the circuit clipped.
      const account = (outcome: string, cache: 'HIT' | 'MISS' | undefined): void => {
        const end = performance.now();
        const decision = cache === 'HIT' ? 'HIT' : started > 0 ? 'MISS' : cache === 'MISS' ? 'SHARED' : 'NONE';
        const labels = { kind, backend: backend.name, network };
        deps.metrics?.proofs.inc({ ...labels, cache: decision, outcome });
        if (started > 0) {
          deps.metrics?.wait.observe(labels, (started - t0) / 1000);
          deps.metrics?.run.observe(labels, (end - started) / 1000);
        }
        // A body passed on unread names no circuit, only its preimage version.
        const what = circuit === undefined ? { preimage } : { circuit: clip(circuit, 128) };
        deps.audit?.info(
          {
            audit: 'proof',
            keyId: ctx.key?.id,
            kind,
            ...what,
            network,
            backend: backend.name,
            cache: decision,
            ms: Math.round((end - t0) * 100) / 100,
            outcome,
          },
          'proof',
        );
      };
      let r;
      try {
        const opts = { onStart, era, ...(ctx.key ? { key: ctx.key.id } : {}) };
        r = await deps.results.get(
          kind,
          network,
          backend.name,
          body,
          ctx.signal,
          (signal) => holding(ctx, kind === 'prove' ? backend.prove(body, signal, opts) : backend.check(body, signal, opts)),
          era,
        );
      } catch (err) {
        account(toGatewayError(err).code, undefined);
        throw err;
      }
      account('ok', r.cache);
      return { body: r.bytes, contentType: OCTET, headers: { 'X-Cache': r.cache } };
    };

  const relayed =
    (get: (b: ProverBackend, s: AbortSignal) => Promise<Relayed>): Handler =>
    async (ctx, backend) => {
      const r = await get(backend, ctx.signal);
      return { status: r.status, body: r.body, contentType: r.contentType, ...(r.headers ? { headers: r.headers } : {}) };
    };

  const post = (url: string, schema: RouteSchema, fn: Handler): RouteDef => ({
    method: 'POST',
    url,
    auth: 'key',
    rateLimit: 'key',
    readHeaders: [NETWORK_HEADER],
    body: { limit: deps.bodyLimit, contentTypes: [OCTET], cost: WORKER_BODY_COST },
    schema,
    handler: handle(fn),
    ...(deps.admit ? { admit: (ctx: RequestContext) => deps.admit!(networkOf(ctx, deps.defaultNetwork), ctx.key?.id) } : {}),
  });
  const get = (url: string, schema: RouteSchema, fn: Handler): RouteDef => ({
    method: 'GET',
    url,
    auth: 'key',
    rateLimit: 'key',
    readHeaders: [NETWORK_HEADER],
    schema,
    handler: handle(fn),
  });

  const proveSchema: RouteSchema = {
    summary: 'Prove one circuit (proof-server /prove)',
    description:
      'Body: a proof-server proving request, `midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):` … as ' +
      "built by the ledger's `createProvingPayload(preimage, bindingInput, keyMaterial?)` (ledger-v8 on a ledger-8 network, " +
      "ledger-v9 on a ledger-9 one: the same bytes). The network's ledger era decides how the in-process backends parse and " +
      'mock-prove it. A preimage version other than V2 (V3: Compact 0.37 circuits) is sent to an upstream or native proof ' +
      'server unchanged; the in-process backends answer it 400. Answer: the proof, `midnight:proof-versioned:` …, byte for byte ' +
      'as the backend produced it. Identical bodies within 30 s are answered from the cache; identical bodies in flight share ' +
      'one computation.',
    tags: ['proving'],
    querystring,
    headers: headerDocs,
    body: { contentType: OCTET, description: 'Proving request (createProvingPayload)' },
    response: { 200: { description: 'The proof (`midnight:proof-versioned:` …)', contentType: OCTET, headers: CACHED_HEADERS }, ...errorDocs('compute') },
  };
  const checkSchema = (summary: string): RouteSchema => ({
    summary,
    description:
      "Body: a proof-server check request, `midnight:(proof-preimage-versioned,option(wrapped-ir)):` … as built by the ledger's " +
      '`createCheckPayload(preimage, ir?)` (either era). Answer: `midnight:vec(option(u64)):` …, readable with ' +
      "`parseCheckResult`. The circuit IR is the one in the request, else the built-in circuit's. Cached, shared and, for a " +
      'preimage other than V2, passed on like /prove.',
    tags: ['proving'],
    querystring,
    headers: headerDocs,
    body: { contentType: OCTET, description: 'Check request (createCheckPayload)' },
    response: {
      200: { description: 'The check result (`midnight:vec(option(u64)):` …)', contentType: OCTET, headers: CACHED_HEADERS },
      ...errorDocs('compute'),
    },
  });
  const textDoc = (description: string): ResponseDoc => ({ description, contentType: 'text/plain', headers: PROVER_HEADERS });

  return [
    post('/prove', proveSchema, computed('prove', parseProveRequest)),
    post('/verify', checkSchema('Check a proof preimage against its circuit (proof-server /check)'), computed('check', parseCheckRequest)),
    post('/check', checkSchema('Proof-server alias of /verify'), computed('check', parseCheckRequest)),
    post(
      '/k',
      {
        summary: 'k of a circuit (proof-server /k)',
        description:
          'Body: a circuit IR, `midnight:ir-source[v2]:` …. Answer: its k (the circuit has 2^k rows) as text. Another ZKIR version ' +
          '(`ir-source[v3]`) is sent to an upstream or native proof server unchanged; the in-process backends answer it 400. Cached ' +
          'and shared like /prove.',
        tags: ['proving'],
        querystring,
        headers: headerDocs,
        body: { contentType: OCTET, description: 'Tagged ZKIR v2 source' },
        response: { 200: { description: 'k, as decimal text', contentType: 'text/plain', headers: CACHED_HEADERS }, ...errorDocs('compute') },
      },
      async (ctx, backend, network, era) => {
        const ir = ctx.body!;
        validate(checkIrSource, ir, backend);
        // A worker thread for most of a second per circuit: cached and shared as /prove is.
        const r = await deps.results.get(
          'k',
          network,
          backend.name,
          ir,
          ctx.signal,
          async (signal) => Buffer.from(await holding(ctx, backend.k(ir, signal, ctx.key ? { key: ctx.key.id } : {})), 'utf8'),
          era,
        );
        return { body: r.bytes, contentType: 'text/plain; charset=utf-8', headers: { 'X-Cache': r.cache } };
      },
    ),
    get(
      '/version',
      {
        summary: 'Prover version (proof-server /version)',
        description: "The upstream or supervised proof server's own answer; for the in-process backends, nightgate's version and backend.",
        tags: ['proving'],
        querystring,
        headers: headerDocs,
        response: { 200: textDoc('Version text'), ...errorDocs('relay') },
      },
      relayed((b, s) => b.version(s)),
    ),
    get(
      '/ready',
      {
        summary: 'Prover readiness (proof-server /ready)',
        description:
          'JSON `{status: "ok"|"busy", jobsProcessing, jobsPending, jobCapacity, timestamp}`; 503 with status "busy" when the queue ' +
          "is full. Upstream/native: the proof server's own answer; wasm/dev: the worker pool's, plus `prover`.",
        tags: ['proving'],
        querystring,
        headers: headerDocs,
        response: {
          200: { description: 'Ready', headers: PROVER_HEADERS },
          ...errorDocs('relay'),
          503: {
            description: 'Busy (queue full), the supervised proof server is starting (PROVER_UNAVAILABLE), or the server is shutting down (SHUTTING_DOWN)',
            headers: { ...PROVER_HEADERS, ...RETRY },
          },
        },
      },
      relayed((b, s) => b.ready(s)),
    ),
    get(
      '/proof-versions',
      {
        summary: 'Proof versions the prover produces (proof-server /proof-versions)',
        tags: ['proving'],
        querystring,
        headers: headerDocs,
        description:
          'What the network\'s backend proves. Upstream, native: the proof server\'s own answer (proof server 9: `["V2","V3"]`), ' +
          'reused for a minute. The in-process backends (wasm, dev): `["V2"]`, on either ledger era.',
        response: { 200: textDoc('e.g. ["V2","V3"]'), ...errorDocs('relay') },
      },
      relayed((b, s) => b.proofVersions(s)),
    ),
  ];
}
