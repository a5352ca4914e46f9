/** The shipped Prometheus and Grafana files (deploy/), read the way the deploy tests need them. */
import { readFileSync } from 'node:fs';
import { ROOT } from './spawn.js';

export const PROMETHEUS_DIR = `${ROOT}deploy/prometheus`;
export const DASHBOARD = `${ROOT}deploy/grafana/nightgate.json`;

/** Every PromQL expression of the dashboard, with its panel's title. */
export function dashboardExprs(): Array<{ panel: string; expr: string }> {
  const d = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query?: unknown }> };
  };
  const out = d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
  for (const v of d.templating.list) {
    const q = typeof v.query === 'object' && v.query !== null ? (v.query as { query: string }).query : undefined;
    const m = q ? /^label_values\((\w+),/.exec(q) : null;
    if (m) out.push({ panel: 'variables', expr: m[1]! });
  }
  return out;
}

/** The alerting rules' expressions, by alert name (a YAML subset: `- alert:` then `expr:` inline or `|`). */
export function ruleExprs(): Array<{ alert: string; expr: string }> {
  const lines = readFileSync(`${PROMETHEUS_DIR}/nightgate-rules.yml`, 'utf8').split('\n');
  const out: Array<{ alert: string; expr: string }> = [];
  let alert = '';
  for (let i = 0; i < lines.length; i++) {
    const a = /^\s*- alert: (\w+)/.exec(lines[i]!);
    if (a) alert = a[1]!;
    const e = /^(\s*)expr: (.*)$/.exec(lines[i]!);
    if (!e) continue;
    if (e[2] !== '|') {
      out.push({ alert, expr: e[2]! });
      continue;
    }
    const body: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.startsWith(e[1]! + '  ') || lines[i + 1]!.trim() === '')) body.push(lines[++i]!.trim());
    out.push({ alert, expr: body.join(' ').trim() });
  }
  return out;
}

/** Metric names an expression reads (nightgate's and Node's default ones). */
export function metricNames(expr: string): string[] {
  return [...new Set([...expr.replace(/"[^"]*"/g, '""').matchAll(/\b((?:nightgate|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1]!))];
}

/** Series names a registry exposes, from its `# TYPE` lines (histograms with _bucket, _sum, _count). */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram' || m[2] === 'summary') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1]! + s);
  }
  return names;
}
