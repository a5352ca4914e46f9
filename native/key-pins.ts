/**
 * Pinned SHA-256 of the built-in circuits' key material and of the KZG parameters, so a key
 * directory is verified before any byte of it is used (the proof server's data provider does the
 * same: midnight-ledger `base-crypto/src/data_provider.rs`, "the SHA-256 hash is verified").
 *
 * Sources (Apache-2.0, midnight-ledger repository): prover keys from the ledger's `static/*.sha256`
 * files; verifier keys and IR hashed from the same release's files (copies of the IR ship in
 * `native/circuits/`); `bls_midnight_2p{k}` from `EXPECTED_DATA` in `data_provider.rs`.
 *
 * Layout of a MIDNIGHT_PP directory: `zswap/9/{spend,output,sign}.{prover,verifier,bzkir}`,
 * `dust/9/spend.{…}` and `bls_midnight_2p{k}` at the top level (`9` is the key-set version the
 * ledger-v8 proof server fetches).
 */

const KEY_SET_VERSION = '9';

export interface BuiltinCircuit {
  /** The key location a preimage names. */
  keyLocation: string;
  /** Path of the circuit's files inside a MIDNIGHT_PP directory, without extension. */
  keyPath: string;
  /** File name of the IR copy shipped in native/circuits/. */
  irFile: string;
  sha256: { prover: string; verifier: string; ir: string };
}

export const BUILTIN_CIRCUITS: ReadonlyMap<string, BuiltinCircuit> = new Map(
  [
    {
      keyLocation: 'midnight/zswap/spend',
      keyPath: `zswap/${KEY_SET_VERSION}/spend`,
      irFile: 'zswap_spend.bzkir',
      sha256: {
        prover: '19d234b5c68b7212ad6b0ec9334a95594748154128f3704eb576bcc843cc5c45',
        verifier: '544554effd7ae9fb9063be52a9ec2a986756301071fcd97bb4598fb45a335658',
        ir: '7cb5bbcf67cb212a3336fb439a77e8f32f0aa8a56185c8e1247d6cbfc7300205',
      },
    },
    {
      keyLocation: 'midnight/zswap/output',
      keyPath: `zswap/${KEY_SET_VERSION}/output`,
      irFile: 'zswap_output.bzkir',
      sha256: {
        prover: 'd992b04f13c3fd432f55fb8bfe6466d87bc181f1a2acf233ec228030bbdd4ed8',
        verifier: '72e8074856f2f5c504ade25a86a2b8902c64aeb9497c4c8e6b26dea842a0ab08',
        ir: '91dc8b401dd8385e8d29eaac018c70b578505f48c7952452ef319bc397fa1f1b',
      },
    },
    {
      keyLocation: 'midnight/zswap/sign',
      keyPath: `zswap/${KEY_SET_VERSION}/sign`,
      irFile: 'zswap_sign.bzkir',
      sha256: {
        prover: 'fe7268dd2bdd107f862f881ac3c5bc71a6df77ce80bfed51cf71514648e660e0',
        verifier: 'e39a727caa0de167e6dd6122a9e3b758fecf48f9093ab77c0309648de8ce07e1',
        ir: '37ea2094516e145a738126307cf92bd293f7cb524b1ccd49fa6f3225a9ec3a50',
      },
    },
    {
      keyLocation: 'midnight/dust/spend',
      keyPath: `dust/${KEY_SET_VERSION}/spend`,
      irFile: 'ledger_dust_spend.bzkir',
      sha256: {
        prover: '996602da7ca386284e656c78ea03e55bffdba29475e6a67965c50de05e13efc2',
        verifier: '3f1569ebcab0655c5c145b28947c74edc4e3f5c6b276e4404b661cf0905b49d3',
        ir: '904181287e75b0fb596ba5fcc116c882ee5d28e3115304c93ebd913722ce5841',
      },
    },
  ].map((c) => [c.keyLocation, c] as const),
);

/** SHA-256 of `bls_midnight_2p{k}`, indexed by k (0–25). */
export const PARAMS_SHA256: readonly string[] = [
  '59b30b3114a34ccbbfb599376e178fb8d9b3366cae2174c2f1da20e75847f823',
  'bbe04fe3c70d0c138447cb086b4baddc30cb8bb2a004114bc02e6f739516280e',
  '80e15568fa1a0117db893239be7fa5e34a6bcc3a8c3bfa7709534b9cb88eb6c1',
  '4be827a6472193df80d8f08b4b25a85baef436fdd1965d89b6af89f4ec4e99e2',
  '232f401fad10c7ddf8828d2aa4c85c6506c5da09795998cecaeb9f75fc8f6ada',
  '0a1c9229f315fc1868ff25f668fb83aec4d09f4f23a706b5197c692c619d72c6',
  'cf2ad6be7d0fedf5bec2aaa35f6be4aca33053d74268fdf5aa54fcb2891ea6df',
  'e82ae890c080188355f37feaffe91372584cd810615082d9143d4dec0453fd9d',
  '909b707551eaaea79828e883cde6fc46ab15986c3b1d791bed462c9e2805c933',
  'b9009f1098bcefffec3c461ab3a5e3a17f7e5599f0f08c70fcdc55a89227bcbd',
  '46b2290933cbed4c378889e4ba971f1a92888331ffb09466acd4ff61a1e2cb42',
  '9901589d7956ff58be0d85569b2f455b77b58c3758026ffb5bbe4807000b96d1',
  'ef08eb3fcf62df8f72c515cffa027e681808b530cb016eea104115545ef6d5c8',
  'd3324910969c4cc54143b8045b649e5c3a4bd5fb7b8f85fe1b770f640ce1c803',
  'fc253016885ec830e97808c9ec920bb5cab5c21af590380a6cb5eb0538e2b244',
  '724c7c3d779148bb113c7ee9c034b2f27db16e6bdf315fde90105a9bad00b1de',
  '09c877216d6589b370263e18af40a030a901b41a7a7c37ef58c9901db41f05c6',
  '4a9ef6c7c0619aab74eede44b13e753e3ba54508a02dd3b7106a949aabb73b74',
  'e8436dc5d8b598f169c127c745135d889744007e6d384ff126df8d1332522f86',
  '8e8dc15c4362f05c912f1e770559a3945db3e58a374def416ed5d3e65ad5b10e',
  '1cc62978558fdc1e445cd70cfd9a86ec3c2e2151b6d74811232d37faf9133ff1',
  '9cf1644a87f0f027ae5fc6278f91d823a6334ff3e338a29e2f2ef57d071ed64d',
  'e8ad5eed936d657a0fb59d2a55ba19f81a3083bb3554ef88f464f5377e9b2c2f',
  '09399d05f9f50875dfdd87dc9903d40c897eaafa9ec8cbb08bace853ecc36c0c',
  'b0e6fa7a4ab4a79a1e6560966f267556409db44bab6d5fab3711ad6c6b623207',
  '3289a751c938988cd2f54154d8722d1eda2cd11593064afdde82099b24ff4a58',
];

export function paramsFile(k: number): string {
  return `bls_midnight_2p${k}`;
}
