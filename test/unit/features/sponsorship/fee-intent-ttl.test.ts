import fc from 'fast-check';
import t from 'tap';
import { ERAS, ledger, release } from '../../../../src/infra/ledger/index.js';
import { DEFAULT_RESERVATION_TTL_MS, feeIntentTtl, reclaimAt } from '../../../../src/features/sponsorship/reservations/reservations.js';

t.test('the fee intent expires strictly before its UTXO can be reclaimed', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
      fc.integer({ min: 10_000, max: 3_600_000 }),
      fc.integer({ min: 1, max: 5_000 }),
      (reservedAt, ttl, margin) => {
        const expires = feeIntentTtl(reservedAt, ttl, margin).getTime();
        // What the ledger of each era will enforce, read back from a real intent (it keeps whole seconds).
        const enforced = ERAS.map((era) => {
          const intent = ledger(era).Intent.new(new Date(expires));
          try {
            return intent.ttl.getTime();
          } finally {
            release(intent);
          }
        });
        return (
          enforced.every((e) => e === expires) &&
          expires % 1000 === 0 &&
          expires <= reclaimAt(reservedAt, ttl) - margin &&
          expires > reclaimAt(reservedAt, ttl) - margin - 1000 &&
          expires > reservedAt
        );
      },
    ),
    { numRuns: 200 },
  );
  t.pass(`200 random reservations, read back by ledger ${ERAS.join(' and ')}`);
});

t.test('five-minute reservations, 30 s margin', async (t) => {
  const reservedAt = Date.UTC(2026, 0, 1, 12, 0, 0, 750);
  t.equal(reclaimAt(reservedAt), reservedAt + DEFAULT_RESERVATION_TTL_MS);
  t.equal(feeIntentTtl(reservedAt, DEFAULT_RESERVATION_TTL_MS, 30_000).toISOString(), '2026-01-01T12:04:30.000Z');
});

t.test('rejects a margin that leaves the intent no life, or no margin', async (t) => {
  t.throws(() => feeIntentTtl(0, 300_000, 0), new RangeError('safetyMarginMs must be a positive number, got 0'));
  t.throws(() => feeIntentTtl(0, 31_000, 30_000), new RangeError('reservationTtlMs (31000) must exceed safetyMarginMs (30000) by more than 1000 ms'));
  t.throws(() => feeIntentTtl(Number.NaN, 300_000, 1), new RangeError('reservedAtMs must be a finite number, got NaN'));
});
