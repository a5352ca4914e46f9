/** The soak's statistics: a least-squares line through a series, and whether it says the series grows. */

export interface Fit {
  slopePerMin: number;
  r2: number;
  first: number;
  last: number;
  min: number;
  max: number;
}

/** Growing: the slope is above the limit and the line explains the series (r² ≥ 0.5). */
export const growing = (f: Fit, limit: number): boolean => f.slopePerMin > limit && f.r2 >= 0.5;

/** Least-squares line through (t, y). */
export function fit(points: ReadonlyArray<{ t: number; y: number }>): Fit {
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.t - mt) * (p.y - my);
    sxx += (p.t - mt) ** 2;
    syy += (p.y - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  const ys = points.map((p) => p.y);
  return { slopePerMin: slope, r2, first: ys[0]!, last: ys[n - 1]!, min: Math.min(...ys), max: Math.max(...ys) };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
