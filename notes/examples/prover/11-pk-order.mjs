import fs from 'node:fs';
const zkir = await import('@midnight-ntwrk/zkir-v2');
const pre = new Uint8Array(fs.readFileSync('./preimage-midnight_zswap_output.bin'));
const ir = new Uint8Array(fs.readFileSync('../../../../test/fixtures/midnight/zk/zswap_output.bzkir'));
const vk = new Uint8Array(fs.readFileSync('../../../../test/fixtures/midnight/zk/zswap_output.verifier'));
const calls = [];
const pk = new Uint8Array(Buffer.concat([Buffer.from('midnight:prover-key[v7](ir-source[v2]):'), Buffer.alloc(256, 0)]));
for (const params of [new Error('offline: no bls_midnight_2p14'), new Uint8Array(128)]) {
  calls.length = 0;
  try {
    await zkir.prove(pre, {
      lookupKey: async (l) => {
        calls.push(['lookupKey', l]);
        return { proverKey: pk, verifierKey: vk, ir };
      },
      getParams: async (k) => {
        calls.push(['getParams', k]);
        if (params instanceof Error) throw params;
        return params;
      },
    });
  } catch (e) {
    console.log('ERR:', String(e?.message ?? e).slice(0, 250));
  }
  console.log('  calls', JSON.stringify(calls));
}
console.log('verifier key tag:', Buffer.from(vk.subarray(0, 40)).toString('latin1').split(':').slice(0, 2).join(':') + ':');
