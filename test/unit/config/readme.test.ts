import t from 'tap';
import { readFileSync } from 'node:fs';
import { settingsTable } from '../../../src/config.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

t.test('README opens with the two commands: install+start, then tests', async (t) => {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  t.equal(blocks[0], 'npm ci && npm start');
  t.equal(blocks[1], 'npm test');
  t.ok(readme.indexOf('```sh') < readme.indexOf('\n## '), 'before any section');
});

t.test('README configuration table is the generated one (every setting, env var, default)', async (t) => {
  const m = /<!-- settings:begin -->\n([\s\S]*?)\n<!-- settings:end -->/.exec(readme);
  t.ok(m, 'markers present');
  t.equal(m![1], settingsTable(), 'regenerate with: npx tsx src/cli.ts config-doc');
});

t.test('.ci/run runs exactly the README test command', async (t) => {
  const ci = readFileSync(new URL('../../../.ci/run', import.meta.url), 'utf8');
  t.match(ci, /npm ci/);
  t.match(ci, /\n\s*npm test /, "the main lane's command, indented inside its lane block");
});
