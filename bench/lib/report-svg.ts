/**
 * bench/results/latest.svg, written by hand (no chart library): two grouped bar charts, throughput
 * and p99 latency, of the cached summary route against the baselines at each connection count
 * (autocannon), and once more at the targets' count with wrk as the load generator when the run
 * has it.
 */
import { runScope } from './run-scope.js';
import { isPipelined, isRepeat, isWrk } from './targets.js';
import type { BenchResults, Measurement } from './types.js';

const SERIES = [
  { key: 'baselines/raw-uws', label: 'raw uWS (ceiling)', color: '#6b7280' },
  { key: 'baselines/raw-uws-address', label: 'raw uWS + address (wrk)', color: '#9ca3af' },
  { key: 'cached-summary/nightgate', label: 'nightgate summary', color: '#2563eb' },
  { key: 'cached-mix/nightgate', label: 'nightgate all cached routes', color: '#60a5fa' },
  { key: 'baselines/fastify', label: 'Fastify', color: '#f59e0b' },
  { key: 'baselines/node-http', label: 'node:http', color: '#10b981' },
] as const;

const WIDTH = 1060;
const PANEL = 300;
const LEFT = 80;
const RIGHT = 20;
const TOP = 60;
const AXIS = 40;
/** Space between a panel's title and the top of its plot (room for the tallest bar's label). */
const PLOT_TOP = 36;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const short = (v: number): string =>
  v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e4 ? `${Math.round(v / 1e3)}k` : v >= 100 ? String(Math.round(v)) : v.toFixed(v >= 10 ? 1 : 2);

/** A round axis maximum at or above `v`: 1, 2 or 5 times a power of ten. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** A group of bars: one connection count under one load generator. */
interface Group {
  key: string;
  label: string;
}

function groupOf(m: Measurement): Group {
  const c = m.load?.connections ?? 0;
  const label = `${c} connection${c === 1 ? '' : 's'}`;
  return isWrk(m) ? { key: `${c} wrk`, label: `${label}, wrk` } : { key: String(c), label };
}

function panel(title: string, y0: number, levels: Group[], value: (m: Measurement) => number, rows: Map<string, Measurement>): string {
  const plotH = PANEL - AXIS - PLOT_TOP;
  const plotW = WIDTH - LEFT - RIGHT;
  const max = niceMax(Math.max(0, ...[...rows.values()].map(value)));
  const parts = [`<text x="${LEFT}" y="${y0 + 16}" class="title">${esc(title)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const y = y0 + PLOT_TOP + plotH - (plotH * i) / 4;
    parts.push(
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y}" y2="${y}" class="grid"/>`,
      `<text x="${LEFT - 8}" y="${y + 4}" class="tick" text-anchor="end">${short((max * i) / 4)}</text>`,
    );
  }
  const groupW = plotW / Math.max(1, levels.length);
  const barW = Math.min(48, (groupW * 0.8) / SERIES.length);
  levels.forEach((g, gi) => {
    const gx = LEFT + gi * groupW + (groupW - barW * SERIES.length) / 2;
    parts.push(`<text x="${LEFT + gi * groupW + groupW / 2}" y="${y0 + PLOT_TOP + plotH + 20}" class="tick" text-anchor="middle">${esc(g.label)}</text>`);
    SERIES.forEach((s, si) => {
      const m = rows.get(`${s.key}/${g.key}`);
      if (!m) return;
      const v = value(m);
      const h = (plotH * v) / max;
      const x = gx + si * barW;
      const y = y0 + PLOT_TOP + plotH - h;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 3).toFixed(1)}` +
          `" height="${h.toFixed(1)}` +
          `" fill="${s.color}` +
          `"><title>${esc(`${s.label}` + `, ${g.label}` + `: ${short(v)}`)}` +
          `</title></rect>`,
        `<text x="${(x + (barW - 3) / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" class="value" text-anchor="middle">${short(v)}</text>`,
      );
    });
  });
  return parts.join('\n');
}

export function renderSvg(r: BenchResults): string {
  const rows = new Map<string, Measurement>();
  // The first round of each run (repeats at the targets' level are for the medians).
  for (const m of r.measurements) if (m.load && !isRepeat(m) && !isPipelined(m)) rows.set(`${m.scenario}/${m.target}/${groupOf(m).key}`, m);
  const groups = new Map<string, Group & { order: number }>();
  for (const m of rows.values()) {
    if (!SERIES.some((s) => s.key === `${m.scenario}/${m.target}`)) continue;
    const g = groupOf(m);
    // autocannon's counts in order, then the wrk group(s).
    groups.set(g.key, { ...g, order: (m.load?.connections ?? 0) + (isWrk(m) ? 1e9 : 0) });
  }
  const levels = [...groups.values()].sort((a, b) => a.order - b.order);
  const height = TOP + 2 * PANEL + 20;
  const legend = SERIES.map((s, i) => {
    const x = LEFT + (i * (WIDTH - LEFT - RIGHT)) / SERIES.length;
    return `<rect x="${x}" y="34" width="12" height="12" fill="${s.color}"/><text x="${x + 18}" y="44" class="tick">${esc(s.label)}</text>`;
  }).join('\n');
  const panels =
    levels.length === 0
      ? `<text x="${LEFT}" y="${TOP + 40}" class="tick">no cached-route or baseline runs in this result</text>`
      : [
          panel('Throughput (requests/s, higher is better)', TOP, levels, (m) => m.load?.rps ?? 0, rows),
          panel('p99 latency (ms, lower is better)', TOP + PANEL, levels, (m) => m.load?.latencyMs.p99 ?? 0, rows),
        ].join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif">
<style>
  .title { font-size: 15px; font-weight: 600; fill: #111827; }
  .tick { font-size: 11px; fill: #374151; }
  .value { font-size: 10px; fill: #111827; }
  .grid { stroke: #e5e7eb; stroke-width: 1; }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="${LEFT}" y="20" class="title">${esc(
    `nightgate ${r.run.commit}` +
      `${r.run.dirty ? '+' : ''}` +
      ` · ${r.run.machine.cores}` +
      ` cores · ${runScope(r).label}` +
      ` · ${r.run.startedAt.slice(0, 16)}` +
      `Z`,
  )}</text>
${legend}
${panels}
</svg>
`;
}
