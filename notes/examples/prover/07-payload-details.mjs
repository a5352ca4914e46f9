import fs from 'node:fs';
const ledger = await import('@midnight-ntwrk/ledger-v8');
const pre = new Uint8Array(fs.readFileSync('./preimage-midnight_zswap_output.bin'));
const pk = new Uint8Array(5_000_000).fill(0xaa),
  vk = new Uint8Array(300).fill(0xbb),
  ir = new Uint8Array(70).fill(0xcc);
const p = ledger.createProvingPayload(pre, undefined, { proverKey: pk, verifierKey: vk, ir });
const off = 72 + 1 + (pre.length - 24);
console.log('payload len', p.length, '= 72 tag + 1 version + ', pre.length - 24, 'preimage body +', p.length - off, '(option<pkm> + option<fr>)');
console.log(
  'bytes at option<pkm>:',
  Buffer.from(p.subarray(off, off + 6)).toString('hex'),
  '... after pk:',
  Buffer.from(p.subarray(off + 5 + pk.length, off + 5 + pk.length + 3)).toString('hex'),
);
console.log('tail:', Buffer.from(p.subarray(p.length - 3)).toString('hex'));
// binding input
for (const b of [0n, 1n, 5n, 255n, 2n ** 64n]) {
  const q = ledger.createProvingPayload(pre, b, undefined);
  console.log('binding', b.toString(16).slice(0, 20), '-> tail', Buffer.from(q.subarray(off + 1)).toString('hex'));
}
// deprecated /prove-tx payload
const tx = ledger.Transaction.deserialize('signature', 'pre-proof', 'pre-binding', fs.readFileSync('./unproven-tx.bin'));
const ptx = ledger.createProvingTransactionPayload(tx, new Map());
console.log('/prove-tx payload len', ptx.length, 'tag:', Buffer.from(ptx.subarray(0, Buffer.from(ptx).indexOf(0x3a, 9) + 1)).toString('latin1'));
// /k payload = tagged IR
const ir2 = fs.readFileSync('../../../../test/fixtures/midnight/zk/zswap_output.bzkir');
console.log('/k body tag:', ir2.subarray(0, ir2.indexOf(0x3a, 9) + 1).toString('latin1'));
