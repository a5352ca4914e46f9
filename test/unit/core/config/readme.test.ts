/**
 * The README opens with the two commands and stays short; CI runs its test command; every relative
 * link in the Markdown docs reaches a file that exists, and a heading there when it names one.
 * (The settings table is checked in configuration-doc.test.ts, the tour in
 * integration/process/readme-tour.test.ts.)
 */
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../../../helpers/spawn.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

t.test('README opens with the two commands: install+start, then tests', async (t) => {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  t.equal(blocks[0], 'npm ci && npm start');
  t.equal(blocks[1], 'npm test');
  t.ok(readme.indexOf('```sh') < readme.indexOf('\n## '), 'before any section');
});

t.test('README is at most 200 lines: the topics live under docs/', async (t) => {
  const lines = readme.trimEnd().split('\n').length;
  t.ok(lines <= 200, `${lines} lines`);
});

t.test('.ci/run runs exactly the README test command', async (t) => {
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  t.match(ci, /npm ci/);
  t.match(ci, /\n\s*npm test /, "the main lane's command, indented inside its lane block");
});

/** The Markdown docs of the repository: README, CHANGELOG and the .md files in these folders. */
function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md'];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'results' && e.name !== 'fixtures') walk(path);
      } else if (e.name.endsWith('.md')) files.push(path);
    }
  };
  for (const dir of ['docs', 'deploy', 'bench', 'test']) walk(dir);
  return files;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

t.test('every relative link in the Markdown docs reaches an existing file and heading', async (t) => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    const text = readFileSync(join(ROOT, file), 'utf8')
      .replace(/^```[\s\S]*?^```/gm, '')
      .replace(/`[^`\n]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      checked++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const to = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), path);
      if (!existsSync(to)) {
        broken.push(`${file}: ${target} (no ${relative(ROOT, to)})`);
        continue;
      }
      if (anchor !== undefined && to.endsWith('.md') && !anchors(readFileSync(to, 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(ROOT, to)})`);
      }
    }
  }
  t.ok(checked > 50, `${checked} links checked`);
  t.strictSame(broken, []);
});
