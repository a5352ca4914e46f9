/**
 * `nightgate example-tx`: sample request bodies for the proving and sponsorship routes, built with
 * the ledger of the era asked for (`--ledger 8|9`, default 9: the era of every public network and
 * of the embedded devnet by default) from an embedded devnet's public test account
 * (devnet/test-accounts.ts), so the README tour and `/docs` run as written. The era must be the
 * network's: a transaction of the other era is refused (LEDGER_ERA_MISMATCH).
 *   unproven       a signed NIGHT transfer, not proven    → body of POST /prove-and-balance
 *   proven         the same, proven, not bound            → body of POST /balance-only
 *   finalized      the same, proven and bound             → body of POST /balance-only
 *   prove-payload  a proof-server request for one zswap output to the account's shielded keys
 *                  → body of POST /prove
 * The transfers spend one of the account's unspent NIGHT UTXOs, read from the running server's
 * public address-activity route (each kind its own: the first, second or third in order, so the
 * examples of a tour do not hold each other's inputs), and send 1 STAR to the account itself with
 * the rest as change:
 * once sponsored they can be submitted to the devnet. A NIGHT transfer needs no proof, so
 * "proving" it is the ledger's own `prove` with a provider that is never asked for one.
 */
import { bech32mDecode, DEFAULT_ERA, isEra, ledger, signOffer, provingProvider, type Era, type Ledger } from '../infra/ledger/index.js';
import { devnetTestAccount } from '@nightgate/devnet/test-accounts';
import { baseUrl } from './base-url.js';

const EXAMPLE_KINDS = ['unproven', 'proven', 'finalized', 'prove-payload'] as const;
type ExampleKind = (typeof EXAMPLE_KINDS)[number];

/** Long enough to run a tour by hand; the sponsor's fee intent expires sooner (5 minutes). */
const EXAMPLE_TTL_MS = 15 * 60 * 1000;
/** `Transaction.fromParts` puts its one intent in segment 1. */
const SEGMENT = 1;
const SENT_STAR = 1n;
const FETCH_TIMEOUT_MS = 30_000;

export class ExampleTxError extends Error {}

interface ExampleOptions {
  /** nightgate's base URL (`http://127.0.0.1:8080`; `localhost:8080` works too). */
  url: string;
  network: string;
  kind: ExampleKind;
  /** The ledger era to build for (default 9). */
  era?: Era;
  now?: () => number;
}

interface AccountUtxo {
  tokenType: string;
  value: string;
  intentHash: string;
  outputIndex: number;
  spent: boolean;
}

export function isExampleKind(kind: string | undefined): kind is ExampleKind {
  return (EXAMPLE_KINDS as readonly string[]).includes(kind ?? '');
}

/** `--ledger` as given: absent → 9; anything but 8 or 9 → undefined (a usage error). */
export function parseLedgerFlag(value: string | undefined): Era | undefined {
  if (value === undefined) return DEFAULT_ERA;
  const n = Number(value);
  return isEra(n) ? n : undefined;
}

export async function exampleTransaction(opts: ExampleOptions): Promise<Uint8Array> {
  const era = opts.era ?? DEFAULT_ERA;
  const L = ledger(era);
  const account = devnetTestAccount(opts.network);
  if (opts.kind === 'prove-payload') return provePayload(L, era, account.zswapSeed);

  const signingKey = L.signingKeyFromBip340(hexBytes(account.nightSeed));
  const verifyingKey = L.signatureVerifyingKey(signingKey);
  const address = L.addressFromKey(verifyingKey);
  const { networkId, utxos } = await accountUtxos(baseUrl(opts.url), opts.network, address);
  const night = L.nativeToken().raw;
  const spendable = utxos.filter((u) => !u.spent && u.tokenType === night && BigInt(u.value) > SENT_STAR);
  // Each kind its own UTXO while the set stands: a sponsored answer holds its inputs until it lands
  // or expires (409 INPUT_HELD to any other spend), and the tour sponsors one example of each kind.
  spendable.sort((x, y) => (`${x.intentHash}#${x.outputIndex}` < `${y.intentHash}#${y.outputIndex}` ? -1 : 1));
  const utxo = spendable[EXAMPLE_KINDS.indexOf(opts.kind) % Math.max(1, spendable.length)];
  if (!utxo) {
    throw new ExampleTxError(
      `the ${opts.network} test account has no unspent NIGHT at ${baseUrl(opts.url)}: example-tx needs the network served by an embedded devnet (the default)`,
    );
  }
  const value = BigInt(utxo.value);
  const now = opts.now?.() ?? Date.now();
  // Ledger TTLs have whole-second resolution.
  const intent = L.Intent.new(new Date(Math.floor((now + EXAMPLE_TTL_MS) / 1000) * 1000));
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value, owner: verifyingKey, type: night, intentHash: utxo.intentHash, outputNo: utxo.outputIndex }],
    [
      { owner: address, type: night, value: SENT_STAR },
      { owner: address, type: night, value: value - SENT_STAR },
    ],
    [],
  );
  const tx = L.Transaction.fromParts(networkId, undefined, undefined, intent);
  // `tx.intents` hands out copies: sign the copy and put it back.
  const signed = tx.intents?.get(SEGMENT);
  const offer = signed?.guaranteedUnshieldedOffer;
  if (!signed || !offer) throw new Error('the example transfer lost its intent');
  signed.guaranteedUnshieldedOffer = signOffer(era, offer, [L.signData(signingKey, signed.signatureData(SEGMENT))]);
  tx.intents = tx.intents?.set(SEGMENT, signed);
  if (opts.kind === 'unproven') return tx.serialize();
  const noProof = provingProvider({
    check: async () => [],
    prove: async (_preimage, keyLocation) => {
      throw new Error(`a NIGHT transfer needs no proof, yet ${keyLocation} was asked for`);
    },
  });
  const proven = await tx.prove(noProof, L.CostModel.initialCostModel());
  return opts.kind === 'proven' ? proven.serialize() : proven.bind().serialize();
}

/**
 * The account's UTXOs and the ledger network id the server builds for. The id is not published on
 * its own; the address the route answers with carries it (`mn_addr_<id>`, mainnet `mn_addr`).
 */
async function accountUtxos(base: string, network: string, addressHex: string): Promise<{ networkId: string; utxos: AccountUtxo[] }> {
  const url = `${base}/api/v1/${encodeURIComponent(network)}/address-activity?identifier=${addressHex}&limit=1`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new ExampleTxError(`cannot read the test account from ${base} (${(err as Error).message}): is nightgate running there? (--url)`);
  }
  const text = await res.text();
  if (res.status === 404) return { networkId: '', utxos: [] };
  if (res.status !== 200) throw new ExampleTxError(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { address: string; utxos: AccountUtxo[] };
  const hrp = bech32mDecode(body.address)?.hrp;
  if (hrp === undefined || !/^mn_addr(_.+)?$/.test(hrp)) throw new ExampleTxError(`GET ${url} answered an address without an mn_addr prefix: ${body.address}`);
  return { networkId: hrp === 'mn_addr' ? 'mainnet' : hrp.slice('mn_addr_'.length), utxos: body.utxos };
}

/** The preimage `tx.prove` hands a proving provider for one zswap output, as a /prove body. */
async function provePayload(L: Ledger, era: Era, zswapSeed: string): Promise<Uint8Array> {
  const keys = L.ZswapSecretKeys.fromSeed(hexBytes(zswapSeed));
  const coin = L.createShieldedCoinInfo(L.shieldedToken().raw, SENT_STAR);
  const output = L.ZswapOutput.new(coin, 0, keys.coinPublicKey, keys.encryptionPublicKey);
  // The preimage does not depend on the network id; the transaction is only its carrier.
  const tx = L.Transaction.fromParts('undeployed', L.ZswapOffer.fromOutput(output));
  let captured: { preimage: Uint8Array; binding: bigint | undefined } | undefined;
  await tx
    .prove(
      provingProvider({
        check: async () => [],
        prove: async (preimage, _keyLocation, binding) => {
          captured = { preimage, binding };
          throw new Error('captured');
        },
      }),
      L.CostModel.initialCostModel(),
    )
    .catch(() => undefined);
  if (!captured) throw new Error(`ledger ${era} asked for no zswap-output proof`);
  return L.createProvingPayload(captured.preimage, captured.binding, undefined);
}

function hexBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
