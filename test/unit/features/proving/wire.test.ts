import t from 'tap';
import fc from 'fast-check';
import { Reader, WireError, encodeCompact } from '../../../../src/features/proving/wire/compact.js';
import {
  TAG,
  checkIrSource,
  encodeCheckResult,
  parseCheckRequest,
  parseProveRequest,
  slice,
  unversionedPreimage,
  versionedPreimage,
} from '../../../../src/features/proving/wire/wire.js';
import { ERAS, contractCallPreimage, ledgerOf, outputPreimage, preimagesOf, shieldedTx, midnightFile } from '../../../fixtures/prover/samples.js';

for (const era of ERAS)
  t.test(`ledger ${era}`, async (t) => {
    const L = ledgerOf(era);

    t.test('walks the bodies the ledger builds: preimage, key location, key material, binding input', async (t) => {
      const pre = outputPreimage();
      const keys = { proverKey: new Uint8Array(70_000).fill(0xaa), verifierKey: new Uint8Array([4, 5]), ir: midnightFile('zk/zswap_output.bzkir') };
      const body = L.createProvingPayload(pre, 2n ** 200n + 5n, keys);
      const r = parseProveRequest(body);
      t.equal(r.keyLocation, 'midnight/zswap/output');
      t.equal(r.bindingInput, 2n ** 200n + 5n);
      t.same(slice(body, r.keyMaterial!.proverKey), keys.proverKey);
      t.same(slice(body, r.keyMaterial!.verifierKey), keys.verifierKey);
      t.same(slice(body, r.keyMaterial!.ir), keys.ir);
      t.same(unversionedPreimage(body, r), pre, 'the ProvingProvider form of the preimage, byte for byte');
      t.doesNotThrow(() => L.PreProof.deserialize(versionedPreimage(body, r)), 'and the form PreProof reads');

      const plain = parseProveRequest(L.createProvingPayload(pre, undefined, undefined));
      t.same([plain.keyMaterial, plain.bindingInput], [undefined, undefined]);

      const check = parseCheckRequest(L.createCheckPayload(pre, keys.ir));
      t.same(slice(L.createCheckPayload(pre, keys.ir), check.ir!), keys.ir);
      t.equal(parseCheckRequest(L.createCheckPayload(pre)).ir, undefined);
    });

    t.test("every preimage a transaction produces walks, including a contract call's communications commitment", async (t) => {
      const all = [...(await preimagesOf(shieldedTx(1n, era), era)).map((p) => p.preimage), await contractCallPreimage('counter/increment', era)];
      for (const pre of all) {
        const r = parseProveRequest(L.createProvingPayload(pre, undefined, undefined));
        t.same(unversionedPreimage(L.createProvingPayload(pre, undefined, undefined), r), pre, r.keyLocation);
      }
      t.equal(parseProveRequest(L.createProvingPayload(all.at(-1)!, undefined, undefined)).keyLocation, 'counter/increment');
    });

    t.test("encodeCheckResult is what the ledger's parseCheckResult reads", async () => {
      fc.assert(
        fc.property(fc.array(fc.option(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { nil: undefined }), { maxLength: 80 }), (values) => {
          const parsed = L.parseCheckResult(encodeCheckResult(values));
          return parsed.length === values.length && parsed.every((v, i) => v === values[i]);
        }),
        { numRuns: era === 9 ? 1000 : 300 },
      );
    });
  });

// Why the era of a proving request comes from its network: the body does not say it.
t.test('both eras build the same proof-server bodies for a preimage: same tags, same preimage version, same bytes', async (t) => {
  const [v8, v9] = [ledgerOf(8), ledgerOf(9)];
  for (const pre of [outputPreimage(), ...(await preimagesOf(shieldedTx(2n, 9), 9)).map((p) => p.preimage)]) {
    t.same(Buffer.from(v9.createProvingPayload(pre, 7n, undefined)), Buffer.from(v8.createProvingPayload(pre, 7n, undefined)));
    t.same(Buffer.from(v9.createCheckPayload(pre, undefined)), Buffer.from(v8.createCheckPayload(pre, undefined)));
  }
  const [p8] = await preimagesOf(shieldedTx(2n, 8), 8);
  const [p9] = await preimagesOf(shieldedTx(2n, 9), 9);
  const r8 = parseProveRequest(v8.createProvingPayload(p8!.preimage, undefined, undefined));
  const r9 = parseProveRequest(v9.createProvingPayload(p9!.preimage, undefined, undefined));
  t.equal(r8.keyLocation, r9.keyLocation, "each era's own preimage walks the same way");
});

t.test('any bytes after a valid tag either walk or fail with a WireError (never anything else, never a hang)', async () => {
  const tag = Buffer.from('midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):');
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (tail) => {
      try {
        parseProveRequest(Buffer.concat([tag, Buffer.from([1]), tail]));
      } catch (err) {
        if (!(err instanceof WireError)) throw err;
      }
    }),
    { numRuns: 2000 },
  );
});

t.test('another preimage version than V2, or another ZKIR than v2, is not walked: UnreadableVersion names it', async (t) => {
  const L = ledgerOf(9);
  const cases = [
    [TAG.proveRequest, L.createProvingPayload(outputPreimage(), 3n, undefined), parseProveRequest],
    [TAG.checkRequest, L.createCheckPayload(outputPreimage(), undefined), parseCheckRequest],
  ] as const;
  for (const [tag, v2, parse] of cases) {
    t.doesNotThrow(() => parse(v2), 'V2 walks');
    for (const d of [0, 2, 3, 255]) {
      // The discriminant changed, and bytes a V2 walk would refuse: nothing after it is read.
      const body = Buffer.concat([Buffer.from(v2), Buffer.from('later fields')]);
      body[tag.length] = d;
      t.throws(
        () => parse(body),
        {
          name: 'UnreadableVersion',
          version: `V${d + 1}`,
          message:
            `the body holds a V${d + 1} proof preimage (discriminant ${d}` +
            ` at byte ${tag.length}` +
            `); nightgate reads only V2 proof preimages (discriminant 1), the version both ledger 8 and ledger 9 build`,
        },
        `discriminant ${d}: V${d + 1}`,
      );
    }
  }
  t.doesNotThrow(() => checkIrSource(midnightFile('zk/zswap_output.bzkir')), 'ZKIR v2 passes');
  for (const v of ['v3', 'v3-generic']) {
    t.throws(() => checkIrSource(Buffer.from(`midnight:ir-source[${v}]:\x01\x02`)), {
      name: 'UnreadableVersion',
      version: `ZKIR ${v}`,
      message: `the body holds a ZKIR ${v} circuit (the tag "midnight:ir-source[${v}]:"); nightgate reads only ZKIR v2 circuits`,
    });
  }
  t.throws(() => checkIrSource(Buffer.from('midnight:transaction[v9]:xyz')), { name: 'WireError' }, 'a body that is no circuit IR is still malformed');
});

t.test('compact integers round-trip, in every mode', async () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (v) => new Reader(encodeCompact(v)).compactBig('v', 32) === v),
    { numRuns: 2000 },
  );
  for (const v of [0n, 63n, 64n, 16383n, 16384n, (1n << 30n) - 1n, 1n << 30n]) {
    if (new Reader(encodeCompact(v)).compactBig('v', 32) !== v) throw new Error(`boundary ${v}`);
  }
});
