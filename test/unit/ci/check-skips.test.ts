/**
 * CI fails a lane on a skip that .ci/allowed-skips does not list for it (.ci/check-skips): a tool
 * missing in a lane is a failure, not a quiet skip.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../../helpers/spawn.js';

const check = (lane: string, tap: string): { status: number | null; out: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-skips-'));
  try {
    writeFileSync(join(dir, 'tap.log'), tap);
    const r = spawnSync('bash', [join(ROOT, '.ci', 'check-skips'), lane, join(dir, 'tap.log')], { encoding: 'utf8' });
    return { status: r.status, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

t.test('a listed skip passes in its own lane only; an unlisted one fails and is named', async (t) => {
  const listed = '    ok 2 - two HTTP threads on one port # SKIP this uWS build has no child apps (20.30)\n';
  const tool = '    ok 2 - nginx, as in deploy/nginx.conf # SKIP nginx is not installed\n';
  t.same(check('main', `ok 1 - a\n${listed}# { total: 2, pass: 1, skip: 1 }\n`), { status: 0, out: '' }, 'listed for main');
  const elsewhere = check('trixie', listed);
  t.equal(elsewhere.status, 1, 'the same skip in a lane that does not list it fails');
  t.match(elsewhere.out, /trixie lane: skipped, and not listed in \.ci\/allowed-skips:\n {2}this uWS build has no child apps \(20\.30\)\n/);
  const missing = check('main', listed + tool);
  t.equal(missing.status, 1, 'a missing tool fails the lane');
  t.match(missing.out, /\n {2}nginx is not installed\n/);
  t.notMatch(missing.out, /child apps/, 'only the unlisted skip is named');
  t.same(
    check('main', 'ok 1 - a TODO and a skip word in a name # TODO later\nok 2 - skip # time=1ms\n'),
    { status: 0, out: '' },
    'todos and names are not skips',
  );
});

t.test('every listed skip gives its lane and its reason; no tool is listed as allowed to be missing', async (t) => {
  const entries = readFileSync(join(ROOT, '.ci', 'allowed-skips'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  t.ok(entries.length > 0);
  for (const e of entries) {
    const [lane, reason, why] = e.split('|').map((s) => s.trim());
    t.ok(['main', 'trixie'].includes(lane ?? '') && reason && why, `${lane} | ${reason}: a lane, a reason and why`);
    t.notMatch(reason ?? '', /not installed|absent|no Chromium/i, `${reason}: not a missing tool`);
  }
});
