/**
 * deploy/: the alerting rules pass `promtool check rules` and their unit tests on
 * recorded series (`promtool test rules`), and the rules and the Grafana dashboard read only
 * metric names nightgate exposes.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { request } from 'undici';
import { startApp } from '../../helpers/app.js';
import { PROMETHEUS_DIR, dashboardExprs, exposedNames, metricNames, ruleExprs } from '../../helpers/deploy-files.js';

const run = promisify(execFile);
const PROMTOOL = '/usr/bin/promtool';

t.test(
  'promtool check rules and promtool test rules',
  { skip: existsSync(PROMTOOL) ? false : `${PROMTOOL} is absent (Debian package prometheus; .ci/run installs it)` },
  async (t) => {
    const check = await run(PROMTOOL, ['check', 'rules', 'nightgate-rules.yml'], { cwd: PROMETHEUS_DIR, timeout: 30_000 });
    t.match(check.stdout, /SUCCESS: 8 rules found/);
    const tests = await run(PROMTOOL, ['test', 'rules', 'nightgate-rules.test.yml'], { cwd: PROMETHEUS_DIR, timeout: 30_000 });
    t.match(tests.stdout, /SUCCESS/);
    t.notMatch(tests.stdout + tests.stderr, /FAILED/);
    const config = await run(PROMTOOL, ['check', 'config', 'prometheus.yml'], { cwd: PROMETHEUS_DIR, timeout: 30_000 });
    t.match(config.stdout, /SUCCESS/);
  },
);

t.test('the rules and the dashboard read only metrics nightgate exposes', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const exposed = exposedNames(await (await request(`${s.url}/metrics`)).body.text());
  t.ok(exposed.size > 40, `${exposed.size} series names exposed`);
  const rules = ruleExprs();
  t.equal(rules.length, 8, 'every alert has its expression');
  for (const { alert, expr } of rules) {
    const names = metricNames(expr);
    t.ok(names.length > 0, `${alert} reads a metric`);
    for (const n of names) t.ok(exposed.has(n), `${alert}: ${n} exists`);
  }
  const panels = dashboardExprs();
  t.ok(panels.length > 30, `${panels.length} dashboard queries`);
  const missing = panels.flatMap(({ panel, expr }) =>
    metricNames(expr)
      .filter((n) => !exposed.has(n))
      .map((n) => `${panel}: ${n}`),
  );
  t.same(missing, [], 'every metric a panel or variable reads exists');
});
