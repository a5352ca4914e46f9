/**
 * docs/configuration.md holds the generated settings table (every setting, env var, default), as
 * `nightgate config-doc` prints it; `config-doc --write FILE` puts it between FILE's markers.
 */
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsTable } from '../../../../src/core/config/index.js';
import { ROOT, runCli } from '../../../helpers/spawn.js';

const MARKED = /<!-- settings:begin -->\n([\s\S]*?)\n<!-- settings:end -->/;

t.test('docs/configuration.md: the table between the markers is the generated one', async (t) => {
  const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const m = MARKED.exec(doc);
  t.ok(m, 'markers present');
  t.equal(m![1], settingsTable(), 'regenerate with: npx tsx src/cli.ts config-doc --write docs/configuration.md');
});

t.test('config-doc --write FILE: the table between the markers, the rest of the file kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'config-doc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'doc.md');
  writeFileSync(file, '# title\n\nbefore\n\n<!-- settings:begin -->\nold | table\n<!-- settings:end -->\n\nafter $& $1\n');
  const p = runCli(['config-doc', '--write', file], {});
  t.equal((await p.exited).code, 0, p.out.join('\n'));
  t.equal(readFileSync(file, 'utf8'), `# title\n\nbefore\n\n<!-- settings:begin -->\n${settingsTable()}\n<!-- settings:end -->\n\nafter $& $1\n`);

  writeFileSync(file, 'no markers\n');
  const refused = runCli(['config-doc', '--write', file], {});
  t.equal((await refused.exited).code, 1, 'a file without the markers is refused');
  t.equal(readFileSync(file, 'utf8'), 'no markers\n', 'and left as it was');
});
