/** Bech32m against the BIP-350 test vectors, and Midnight address round trips. */
import t from 'tap';
import { bech32mDecode, bech32mDecodeWords, bech32mEncode } from '../../../packages/ledger/src/bech32m.js';
import { addressHrp, decodeAddress, hexToAddress } from '../../../src/features/stats/params.js';

/** BIP-350, "Test vectors for Bech32m": valid strings. */
const VALID = [
  'A1LQFN3A',
  'a1lqfn3a',
  'an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11sg7hg6',
  'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx',
  `11${'l'.repeat(83)}udsr8`,
  'split1checkupstagehandshakeupstreamerranterredcaperredlc445v',
  '?1v759aa',
];

/** BIP-350 invalid strings (the length-limit case does not apply: Midnight addresses exceed 90). */
const INVALID = [
  '\x201xj0phk',
  '\x7f1g6xzxy',
  '\x801vctc34',
  'qyrz8wqd2c9m',
  '1qyrz8wqd2c9m',
  'y1b0jsk6g',
  'lt1igcx5c0',
  'in1muywd',
  'mm1crxm3i',
  'au1s5cgom',
  'M1VUXWEZ',
  '16plkw9',
  '1p2gdwpf',
  // A valid Bech32 (BIP-173) string is not Bech32m.
  'a12uel5l',
];

t.test('BIP-350 valid vectors decode', async (t) => {
  for (const v of VALID) t.ok(bech32mDecodeWords(v), v);
  t.strictSame(bech32mDecodeWords('abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx'), { hrp: 'abcdef', words: Array.from({ length: 32 }, (_, i) => 31 - i) });
});

t.test('BIP-350 invalid vectors are refused', async (t) => {
  for (const v of INVALID) t.equal(bech32mDecodeWords(v), undefined, JSON.stringify(v));
});

t.test('BIP-350 segwit v1 address: witness program recovered', async (t) => {
  const d = bech32mDecodeWords('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')!;
  t.equal(d.hrp, 'bc');
  t.equal(d.words[0], 1, 'witness version 1');
  let acc = 0;
  let bits = 0;
  const bytes: number[] = [];
  for (const w of d.words.slice(1)) {
    acc = (acc << 5) | w;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  t.equal(Buffer.from(bytes).toString('hex'), '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
});

t.test('bytes round trip and checksum sensitivity', async (t) => {
  const bytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
  const s = bech32mEncode('mn_addr_preview', bytes);
  t.match(s, /^mn_addr_preview1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}$/);
  t.strictSame(bech32mDecode(s), { hrp: 'mn_addr_preview', bytes });
  t.strictSame(bech32mDecode(s.toUpperCase()), { hrp: 'mn_addr_preview', bytes }, 'upper case is the same string');
  const flipped = s.slice(0, -1) + (s.endsWith('q') ? 'p' : 'q');
  t.equal(bech32mDecode(flipped), undefined, 'one changed character fails the checksum');
});

t.test('Midnight unshielded addresses: hrp per network, 32 bytes', async (t) => {
  t.equal(addressHrp('mainnet'), 'mn_addr');
  t.equal(addressHrp('preview'), 'mn_addr_preview');
  const hex = 'ab'.repeat(32);
  const a = hexToAddress(hex, 'preview');
  t.strictSame(decodeAddress(a.bech32, 'preview', 'identifier'), a);
  t.throws(() => decodeAddress(a.bech32, 'mainnet', 'identifier'), {
    code: 'INVALID_PARAMETER',
    message: 'identifier is an address for mn_addr_preview, this network uses mn_addr',
  });
  t.equal(decodeAddress(bech32mEncode('bc', Uint8Array.from([1, 2])), 'mainnet', 'identifier'), undefined, 'not an mn_addr prefix');
  t.throws(() => decodeAddress(bech32mEncode('mn_addr', Uint8Array.from([1, 2])), 'mainnet', 'q'), { message: 'q must encode 32 bytes' });
});
