/** nightgate's version, from package.json (found by walking up: the same code runs from src/ and dist/src/). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function find(): { name: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'nightgate') return { name: pkg.name, version: pkg.version ?? '0.0.0' };
    }
    dir = dirname(dir);
  }
  return { name: 'nightgate', version: '0.0.0' };
}

export const PACKAGE = find();
