/**
 * Proof-server request bodies built by the ledger itself (never hand-encoded, LEDGER.md "Proving"):
 * the preimage a transaction with one shielded output asks its prover for, wrapped by
 * `createProvingPayload` (/prove) and `createCheckPayload` (/check, /verify). Distinct bodies for
 * cache-defeating runs differ only in the optional binding input, which the format carries.
 * Built with the era of the network the run targets (default ledger 9).
 */
import { DEFAULT_ERA, ledger, provingProvider, type Era } from '../../src/infra/ledger/index.js';

export interface ProvingPayloads {
  /** Key location the preimage is for. */
  circuit: string;
  /** One /prove body (sent repeatedly: cache hits). */
  prove: Buffer;
  /** One /verify (/check) body. */
  check: Buffer;
  /** A proof in the proof server's response format, as the ledger's own mock shapes it. */
  proofResponse: Buffer;
  /** `count` /prove bodies that differ from each other and from `prove`. */
  /** `count` /prove bodies, each its own binding: `from`, `from + 1`, … (default 1). */
  distinctProve(count: number, from?: number): Buffer[];
}

export async function buildProvingPayloads(networkId = 'undeployed', era: Era = DEFAULT_ERA): Promise<ProvingPayloads> {
  const L = ledger(era);
  const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(7));
  const coin = L.createShieldedCoinInfo(L.shieldedToken().raw, 1000n);
  const output = L.ZswapOutput.new(coin, 0, keys.coinPublicKey, keys.encryptionPublicKey);
  const tx = L.Transaction.fromParts(networkId, L.ZswapOffer.fromOutput(output, L.shieldedToken().raw, 1000n));
  const proof = tx.mockProve().guaranteedOffer?.outputs[0]?.proof.serialize();
  if (!proof) throw new Error(`ledger ${era} mockProve gave no output proof`);

  // Capture what `prove` asks the provider for, answering with the mock proof so it completes.
  let captured: { preimage: Uint8Array; circuit: string } | undefined;
  await tx.prove(
    provingProvider({
      check: async () => [],
      prove: async (preimage: Uint8Array, keyLocation: string) => {
        captured ??= { preimage, circuit: keyLocation };
        return proof;
      },
    }),
    L.CostModel.initialCostModel(),
  );
  if (!captured) throw new Error(`ledger ${era} prove() asked for no proof`);
  const { preimage, circuit } = captured;
  return {
    circuit,
    prove: Buffer.from(L.createProvingPayload(preimage, undefined, undefined)),
    check: Buffer.from(L.createCheckPayload(preimage, undefined)),
    proofResponse: Buffer.from(proof),
    distinctProve: (count, from = 1) => Array.from({ length: count }, (_, i) => Buffer.from(L.createProvingPayload(preimage, BigInt(from + i), undefined))),
  };
}
