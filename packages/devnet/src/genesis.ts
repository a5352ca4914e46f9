// Genesis of an embedded network, dated in the past so DUST has accrued by the time the chain goes
// live. Block 0 mints: NIGHT by reward claims (`testingDistributeNight` + a signature-erased
// `ClaimRewardsTransaction`, the ledger's testing path) and shielded coins by an unbalanced Zswap
// output. Ten minutes later the setup blocks register every NIGHT owner for DUST generation, each
// registration splitting its UTXO in three (the ledger allows about three DUST-generating outputs
// per transaction), so each sponsor key ends with SPONSOR_DUST_UTXOS DUST UTXOs and can sponsor
// that many transactions concurrently.
import { candidateOf, type Candidate } from './chain.js';
import type { Chain } from './chain.js';
import type { DevnetActors } from './actors.js';
import { NIGHT_TOKEN, SHIELDED_TOKEN, STAR_PER_NIGHT, type L } from './ledger-kit.js';
import { bytesToHex, deriveSeed } from './keys.js';
import type { MockProver } from './mock-prover.js';
import { TEST_ACCOUNT_NIGHT_STAR } from './test-accounts.js';
import { buildFinalized, registrationAllowance } from './tx-builder.js';
import type { Actor } from './wallet.js';

export const OUTPUTS_PER_REGISTRATION = 3;
const SPONSOR_REGISTRATIONS = 11;
export const SPONSOR_DUST_UTXOS = SPONSOR_REGISTRATIONS * OUTPUTS_PER_REGISTRATION;

const TREASURY_STAR = 1_000_000_000n * STAR_PER_NIGHT;
const USER_STAR = 3_000_000n * STAR_PER_NIGHT;
const SPONSOR_UTXO_STAR = 3_000_000n * STAR_PER_NIGHT;
const SHIELDED_COINS = 2;
const SHIELDED_COIN_VALUE = 1_000_000_000n;
/** Between the mint and the registrations: their fee allowance is what the NIGHT generated meanwhile. */
export const REGISTRATION_DELAY_MS = 10 * 60 * 1000;
export const SETUP_BLOCK_MS = 6000;

interface Mint {
  actor: Actor;
  star: bigint;
}

function mints(actors: DevnetActors): Mint[] {
  return [
    { actor: actors.treasury, star: TREASURY_STAR },
    ...actors.users.map((actor) => ({ actor, star: USER_STAR })),
    { actor: actors.testAccount.owner, star: TEST_ACCOUNT_NIGHT_STAR },
    ...actors.sponsors.flatMap((s) => Array.from({ length: SPONSOR_REGISTRATIONS }, () => ({ actor: s.owner, star: SPONSOR_UTXO_STAR }))),
  ];
}

/** Block 0's candidates. Mutates the chain's state: claims can only claim what was distributed. */
export function genesisCandidates(chain: Chain, actors: DevnetActors, networkId: string, seed: string, timeMs: number): Candidate[] {
  const { L } = chain.kit;
  const shielded = [...actors.shielded.map((w) => w.keys), actors.testAccount.zswap].flatMap((keys) =>
    Array.from({ length: SHIELDED_COINS }, () =>
      L.ZswapOffer.fromOutput(
        L.ZswapOutput.new(L.createShieldedCoinInfo(SHIELDED_TOKEN, SHIELDED_COIN_VALUE), 0, keys.coinPublicKey, keys.encryptionPublicKey),
      ),
    ),
  );
  const offer = shielded.reduce((acc, o) => acc.merge(o));
  const candidates = [candidateOf(L.Transaction.fromParts(networkId, offer), 'genesis')];
  const erased = new L.SignatureErased();
  mints(actors).forEach(({ actor, star }, i) => {
    chain.state = chain.state.testingDistributeNight(actor.address, star, new Date(timeMs));
    const nonce = bytesToHex(deriveSeed(seed, `genesis-claim-${i}`));
    const claim = new L.ClaimRewardsTransaction(erased.instance, networkId, star, actor.verifyingKey, nonce, erased);
    candidates.push(candidateOf(L.Transaction.fromRewards(claim), 'genesis'));
  });
  return candidates;
}

function split(value: bigint, parts: number, owner: string): L.UtxoOutput[] {
  const share = value / BigInt(parts);
  return Array.from({ length: parts }, (_, i) => ({
    owner,
    type: NIGHT_TOKEN,
    value: i === 0 ? value - share * BigInt(parts - 1) : share,
  }));
}

/** The registrations of every genesis UTXO, built against the state after block 0. */
export async function registrationCandidates(
  state: L.LedgerState,
  actors: DevnetActors,
  networkId: string,
  prover: MockProver,
  timeMs: number,
): Promise<Candidate[]> {
  const time = new Date(Math.floor(timeMs / 1000) * 1000);
  const owners: Array<{ actor: Actor; dustPublicKey: L.DustPublicKey }> = [
    { actor: actors.treasury, dustPublicKey: actors.dust.publicKey },
    ...actors.users.map((actor) => ({ actor, dustPublicKey: actors.dust.publicKey })),
    { actor: actors.testAccount.owner, dustPublicKey: actors.testAccount.dustPublicKey },
    ...actors.sponsors.map((s) => ({ actor: s.owner, dustPublicKey: s.dustPublicKey })),
  ];
  const kit = prover.kit;
  const ctx = { kit, networkId, params: state.parameters, time, prover };
  const candidates: Candidate[] = [];
  for (const { actor, dustPublicKey } of owners) {
    for (const utxo of actor.nightUtxos(state)) {
      const tx = await buildFinalized(
        {
          signer: actor,
          inputs: [utxo],
          outputs: split(utxo.value, OUTPUTS_PER_REGISTRATION, actor.address),
          registration: { dustPublicKey, allowFeePayment: registrationAllowance(kit, state, utxo, dustPublicKey, time) },
        },
        ctx,
      );
      candidates.push(candidateOf(tx, 'devnet'));
    }
  }
  return candidates;
}
