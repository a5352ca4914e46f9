/**
 * What an audit line of a sponsorship names, read from its answer without parsing the transaction:
 * the answer is `{"tx":"<hex>","txHash":…}` (SponsoredSchema, src/features/sponsorship/routes.ts, built in that
 * order by src/features/sponsorship/sponsorship.ts), so only what follows `tx` is parsed — a few hundred bytes,
 * however large the transaction.
 */
interface SponsoredSummary {
  txHash: string;
  fee: string;
  dustUtxo: { wallet: number; slot: number };
}

const AFTER_TX = '","txHash":';

export function sponsoredSummary(body: string): SponsoredSummary | undefined {
  const at = body.indexOf(AFTER_TX);
  if (at < 0) return undefined;
  try {
    const rest = JSON.parse(`{${body.slice(at + 2)}`) as Partial<SponsoredSummary>;
    if (typeof rest.txHash !== 'string' || typeof rest.fee !== 'string' || !rest.dustUtxo) return undefined;
    return { txHash: rest.txHash, fee: rest.fee, dustUtxo: rest.dustUtxo };
  } catch {
    return undefined;
  }
}
