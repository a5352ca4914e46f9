/**
 * Every section a source file cites (`docs/sponsorship.md, "Capacity"`, `DESIGN.md#the-mechanisms`)
 * and every `file.md#anchor` link of the Markdown pages exists: a renamed or removed section fails
 * here, not in a reader's hands. A cited name matches a heading, or the start of one at a word
 * boundary ("Building transactions" for "Building transactions offline (works)").
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
// This file's own examples aside.
const CODE = tracked.filter(
  (f) => /^(src|workers|native|bench|packages|test|scripts)\//.test(f) && /\.(ts|js|mjs|cjs)$/.test(f) && f !== 'test/unit/doc-citations.test.ts',
);
const PAGES = tracked.filter((f) => f.endsWith('.md'));

/** GitHub's anchor for a heading. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map((m) => m[1]!.replace(/`/g, ''));
}

/** The tracked Markdown page a citation names: a path from the root or the citing file, or a unique file name. */
function resolve(cited: string, from: string): string | undefined {
  for (const p of [normalize(cited), normalize(join(dirname(from), cited))]) if (PAGES.includes(p)) return p;
  const named = PAGES.filter((p) => basename(p) === basename(cited));
  return named.length === 1 ? named[0] : undefined;
}

function found(page: string, name: string | undefined, anchor: string | undefined): boolean {
  const hs = headings(page);
  if (anchor !== undefined) return hs.some((h) => slug(h) === anchor);
  const n = name!.replace(/\s+/g, ' ').trim();
  return hs.some((h) => h === n || (h.startsWith(n) && /^[\s(:,—-]/.test(h.slice(n.length))));
}

t.test('every section cited in code exists', async (t) => {
  const cites = /([\w./-]*[A-Za-z]\.md)(?:#([\w-]+)|[,:]?\s*\(?(?:section\s+)?"([^"\n]{2,80})")/g;
  const missing: string[] = [];
  let count = 0;
  for (const file of CODE) {
    // Comments wrap: a citation may run over the `*` or `//` of the next line.
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/\n\s*(?:\*(?!\/)|\/\/)\s*/g, ' ');
    for (const m of text.matchAll(cites)) {
      const page = resolve(m[1]!, file);
      count++;
      if (!page) missing.push(`${file}: ${m[0]} (no such page)`);
      else if (!found(page, m[3], m[2])) missing.push(`${file}: ${m[0]} (no such section in ${page})`);
    }
  }
  t.ok(count > 30, `${count} citations read`);
  t.same(missing, [], 'each names a page and a section that exist');
});

t.test('every Markdown link to a section of a page exists', async (t) => {
  const links = /\]\(([^)\s#]*\.md)?#([\w-]+)\)/g;
  const missing: string[] = [];
  let count = 0;
  for (const file of PAGES) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(links)) {
      const page = m[1] === undefined ? file : normalize(join(dirname(file), m[1]));
      count++;
      if (!PAGES.includes(page)) missing.push(`${file}: ${m[0]} (no such page)`);
      else if (!found(page, undefined, m[2])) missing.push(`${file}: ${m[0]} (no such section in ${page})`);
    }
  }
  t.ok(count > 10, `${count} links read`);
  t.same(missing, [], 'each names a section that exists');
});

t.test('the check catches a citation of a section that is gone', async (t) => {
  t.notOk(found('docs/DESIGN.md', 'Performance targets', undefined), 'a removed section');
  t.ok(found('docs/DESIGN.md', 'The mechanisms', undefined), 'a present one');
  t.notOk(found('docs/sponsorship.md', 'What hap', undefined), 'a prefix ends at a word boundary');
  t.ok(found('docs/sponsorship.md', 'What happens', undefined));
  t.ok(found('docs/operations.md', undefined, 'request-bodies-in-flight'), 'an anchor');
  t.equal(slug('Node, system, uWS build'), 'node-system-uws-build');
});
