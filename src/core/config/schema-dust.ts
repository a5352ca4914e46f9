/** The `dust` group of the settings tree: the server wallets, DUST reservations, fees, budgets and sponsorship limits. */
import { Type } from '@sinclair/typebox';
import { NonNegInt, PositiveInt, Speck, setting } from './setting.js';

/** `dust.*`: sponsorship's settings, one group of ConfigSchema (schema.ts). */
export const DustSettings = Type.Object({
  enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_BALANCING_ENABLED', default: true, doc: 'Serve /prove-and-balance and /balance-only' }),
  walletMnemonic: setting(Type.String(), {
    env: 'NIGHTGATE_DUST_WALLET_MNEMONIC',
    default: '',
    secret: true,
    doc:
      "BIP-39 mnemonic of the server wallets: wallet i has the keys Midnight's wallets derive at account `dust.walletAccount`, " +
      'index i (its NIGHT address from role NightExternal, its DUST key from role Dust); docs/going-live.md. One of ' +
      '`dust.walletMnemonic`, `dust.walletMnemonicFile`, `dust.walletSeed`; on the embedded devnet generated when none is set',
  }),
  walletMnemonicFile: setting(Type.String(), {
    env: 'NIGHTGATE_DUST_WALLET_MNEMONIC_FILE',
    default: '',
    doc: 'Path of a file holding the mnemonic (e.g. a systemd credential); refused when other users may read it',
  }),
  walletSeed: setting(Type.String({ pattern: '^([0-9a-fA-F]{128})?$' }), {
    env: 'NIGHTGATE_DUST_WALLET_SEED',
    default: '',
    secret: true,
    doc: 'The 64-byte BIP-39 seed (hex) in place of the mnemonic it comes from',
  }),
  walletCount: setting(Type.Integer({ minimum: 1, maximum: 64 }), {
    env: 'NIGHTGATE_DUST_WALLET_COUNT',
    default: 2,
    doc:
      'Server wallets derived from the mnemonic or seed: indexes 0 to this − 1. Each sponsors on its own DUST UTXOs; two ' +
      'instances must never share one (`dust.walletAccount`)',
  }),
  walletAccount: setting(Type.Integer({ minimum: 0, maximum: 0x7fffffff }), {
    env: 'NIGHTGATE_DUST_WALLET_ACCOUNT',
    default: 0,
    doc: 'HD account the server wallets are derived in (another account per instance when several share one mnemonic)',
  }),
  walletDerivation: setting(Type.Union([Type.Literal('hd'), Type.Literal('legacy')]), {
    env: 'NIGHTGATE_DUST_WALLET_DERIVATION',
    default: 'hd',
    doc:
      "`hd`: Midnight's HD scheme from `dust.walletMnemonic` or `dust.walletSeed`. `legacy`: `dust.walletSeeds`, 32-byte seeds " +
      'in nightgate\'s own derivation (DUST key `DustSecretKey.fromSeed(seed)`, NIGHT key `sha256("nightgate-wallet-night\\0" ‖ ' +
      'seed)`), which no Midnight wallet knows',
  }),
  walletSeeds: setting(Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })), {
    env: 'NIGHTGATE_DUST_WALLET_SEEDS',
    default: [],
    secret: true,
    doc: 'With `dust.walletDerivation` `legacy`: hex 32-byte seeds of the server wallets (comma-separated)',
  }),
  reservationTtlMs: setting(Type.Integer({ minimum: 10_000 }), {
    env: 'NIGHTGATE_DUST_RESERVATION_TTL_MS',
    default: 300_000,
    doc: 'A DUST UTXO reservation is reclaimed after this long unless spent',
  }),
  ttlSafetyMs: setting(Type.Integer({ minimum: 5_000 }), {
    env: 'NIGHTGATE_DUST_TTL_SAFETY_MS',
    default: 60_000,
    doc: 'The fee intent expires this long before its reservation can be reclaimed',
  }),
  tableCapacity: setting(Type.Integer({ minimum: 16, maximum: 1_000_000 }), {
    env: 'NIGHTGATE_DUST_TABLE_CAPACITY',
    default: 4_096,
    doc: 'DUST UTXOs tracked per network in the shared allocator table',
  }),
  snapshotBytes: setting(Type.Integer({ minimum: 65_536 }), {
    env: 'NIGHTGATE_DUST_SNAPSHOT_BYTES',
    default: 33_554_432,
    doc: 'Shared memory for the wallet state the workers replicate, per network',
  }),
  spentRetentionMs: setting(PositiveInt, {
    env: 'NIGHTGATE_DUST_SPENT_RETENTION_MS',
    default: 600_000,
    doc: 'Spent DUST UTXOs stay visible in wallet-status this long before their slot is reused',
  }),
  maxInFlight: setting(PositiveInt, { env: 'NIGHTGATE_DUST_MAX_IN_FLIGHT', default: 1_024, doc: 'Sponsorships being computed at once; beyond it → 503' }),
  feeTtlMs: setting(NonNegInt, {
    env: 'NIGHTGATE_DUST_FEE_TTL_MS',
    default: 0,
    doc:
      "Life of a sponsored transaction's fee intent (submit before `expiresAt`); 0 = 5 blocks (30 s at 6 s blocks), or as many " +
      "blocks as this server's own unlanded sponsored transactions fill plus 2 when that is more, up to 12. The fee holds at " +
      "the prices of every block until then, as the ledger's price update raises them under full blocks, so a longer life costs " +
      'more DUST',
  }),
  feeMargin: setting(Type.Integer({ minimum: 0, maximum: 20 }), {
    env: 'NIGHTGATE_DUST_FEE_MARGIN',
    default: 1,
    doc: "Extra blocks of price rise a fee covers beyond those until its intent's TTL",
  }),
  maxReservationsPerKey: setting(PositiveInt, {
    env: 'NIGHTGATE_DUST_MAX_RESERVATIONS_PER_KEY',
    default: 16,
    doc: 'DUST UTXOs one API key may hold reserved at once per network (in flight or answered and not yet spent or reclaimed); beyond → 429 with Retry-After',
  }),
  targetUtxos: setting(NonNegInt, {
    env: 'NIGHTGATE_DUST_TARGET_UTXOS',
    default: 256,
    doc:
      "DUST UTXOs to grow to per network: once fewer than half of those held are free, the server splits its wallets' NIGHT " +
      'into more DUST-generating UTXOs until it holds this many (embedded devnet only; 0 = never)',
  }),
  growAtStart: setting(Type.Boolean(), {
    env: 'NIGHTGATE_DUST_GROW_AT_START',
    default: false,
    doc:
      'Grow each pool to `dust.targetUtxos` from start, demand or not; /readyz answers 503 until it holds them (or its wallets ' +
      'have no NIGHT left to split). Off: the pool grows once demand has taken half of it',
  }),
  maxFee: setting(Speck, {
    env: 'NIGHTGATE_DUST_MAX_FEE',
    default: '5000000000000000',
    doc: 'Per-transaction fee cap in SPECK (a key may set a lower one); over → 403',
  }),
  budget: setting(Speck, {
    env: 'NIGHTGATE_DUST_BUDGET',
    default: '500000000000000000',
    doc: 'DUST (SPECK) one API key may spend per budget window; over → 429',
  }),
  budgetWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_BUDGET_WINDOW_MS', default: 3_600_000, doc: 'Budget window in ms' }),
  stateDir: setting(Type.String(), {
    env: 'NIGHTGATE_DUST_STATE_DIR',
    default: '',
    doc:
      'Directory for the DUST reservation journal (answered fee intents keep their UTXO reserved across a restart) and the ' +
      "usage ledger's day files (`usage/`, GET /usage); empty = not persisted, set it in production",
  }),
  dedupeWindowMs: setting(PositiveInt, {
    env: 'NIGHTGATE_DUST_DEDUPE_WINDOW_MS',
    default: 300_000,
    doc: 'Same transaction bytes from the same key within this window get the same answer, no second UTXO',
  }),
  checkInputs: setting(Type.Boolean(), {
    env: 'NIGHTGATE_DUST_CHECK_INPUTS',
    default: true,
    doc:
      'Before reserving a DUST UTXO, check every unshielded input of the transaction against the indexer: unspent, its ' +
      "signer's, of the network's ledger era, value and token as claimed (else 400 TRANSACTION_REJECTED naming the input; an " +
      'indexer that cannot answer → 503 INPUTS_UNCHECKED)',
  }),
  inputCheckCacheMs: setting(NonNegInt, {
    env: 'NIGHTGATE_DUST_INPUT_CHECK_CACHE_MS',
    default: 1_000,
    doc: "How long an address's unspent UTXOs read for the input check are trusted; an input not found is read again after 250 ms",
  }),
  expiryMarginMs: setting(NonNegInt, {
    env: 'NIGHTGATE_DUST_EXPIRY_MARGIN_MS',
    default: 10_000,
    doc:
      "An answer's DUST reservation is released this long after its fee intent's TTL (`expiresAt`) when its transaction has not " +
      'landed and the chain the sync follows is past the TTL, instead of at `dust.reservationTtlMs`',
  }),
  throttleSlack: setting(PositiveInt, {
    env: 'NIGHTGATE_DUST_THROTTLE_SLACK',
    default: 10,
    doc:
      'Sponsored answers of one key that may expire without landing beyond those that landed (decayed over ' +
      '`dust.keyHealthWindowMs`) before its `dust.maxReservationsPerKey` share is halved; each further as many halve it again, ' +
      'down to 1; landings win it back',
  }),
  keyHealthWindowMs: setting(PositiveInt, {
    env: 'NIGHTGATE_DUST_KEY_HEALTH_WINDOW_MS',
    default: 600_000,
    doc: 'Time constant of the decay of the per-key counts of answers landed and expired unlanded (`dust.throttleSlack`)',
  }),
});
