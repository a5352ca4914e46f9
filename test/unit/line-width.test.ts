/**
 * No line of the files Biome formats is wider than its `lineWidth` (biome.jsonc): the formatter
 * cannot break a string or a comment, so this holds them to the same width. Widths are counted in
 * characters (code points), as the formatter counts them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/spawn.js';

/** The formatter's width, read from its configuration (comments stripped). */
function lineWidth(): number {
  const text = readFileSync(join(ROOT, 'biome.jsonc'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  return (JSON.parse(text) as { formatter: { lineWidth: number } }).formatter.lineWidth;
}

/** The lines of `text` wider than `width`, as "line: width". */
export function tooWide(text: string, width: number): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    const n = [...line].length;
    if (n > width) out.push(`${i + 1}: ${n}`);
  });
  return out;
}

t.test('no formatted line is wider than the formatter allows', async (t) => {
  const width = lineWidth();
  t.equal(width, 160, 'the width biome.jsonc sets');
  const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.js', '*.mjs', '*.cjs'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && f !== 'packages/client/src/openapi-types.ts');
  t.ok(files.length > 500, `${files.length} files read`);
  const wide = files.flatMap((f) => tooWide(readFileSync(join(ROOT, f), 'utf8'), width).map((l) => `${f}:${l}`));
  t.strictSame(wide, [], 'every line within the width');
});

t.test('a line is measured in characters, not bytes', async (t) => {
  t.strictSame(tooWide('→'.repeat(160), 160), [], 'multi-byte characters count once');
  t.strictSame(tooWide(`ok\n${'x'.repeat(161)}\n`, 160), ['2: 161'], 'a planted wide line is caught');
});
