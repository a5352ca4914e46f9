/**
 * The files the dashboard (`/`) and the API reference (`/api`) load, served by nightgate itself:
 * the server is often offline or air-gapped, so nothing comes from a CDN. Our own scripts and
 * styles live in `static/` next to this module; uPlot and Swagger UI come from their npm packages.
 *
 * Each file is read on its first request and kept with its gzip and brotli forms (servedMany):
 * Swagger UI is 1.7 MB as it ships, about 460 KB gzipped. Pages reference them with `?v=` and a
 * digest of the content, so a browser may keep them for a week and still never runs a stale one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../../../core/errors.js';
import { servedMany } from '../../../core/http/compression.js';
import type { Reply, RouteDef } from '../../../core/http/route.js';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * `static/` is not compiled: run from the sources it is next to this file; from `dist/` it is the
 * one in the same folder under the package's `src/` (package.json `files` ships it).
 */
function staticDir(): string {
  const fromDist = here.replace(`${sep}dist${sep}src${sep}`, `${sep}src${sep}`);
  for (const dir of [join(here, 'static'), join(fromDist, 'static')]) {
    if (existsSync(join(dir, 'dashboard.js'))) return dir;
  }
  throw new Error(`nightgate: the dashboard's static files were not found next to ${here}`);
}

const pkgFile = (pkg: string, file: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), file);

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Served name → where the file is. */
const FILES: Record<string, () => string> = {
  'dashboard-helpers.js': () => join(staticDir(), 'dashboard-helpers.js'),
  'dashboard-chart.js': () => join(staticDir(), 'dashboard-chart.js'),
  'dashboard.js': () => join(staticDir(), 'dashboard.js'),
  'dashboard.css': () => join(staticDir(), 'dashboard.css'),
  'operator-tables.js': () => join(staticDir(), 'operator-tables.js'),
  'operator.js': () => join(staticDir(), 'operator.js'),
  'api.js': () => join(staticDir(), 'api.js'),
  'api.css': () => join(staticDir(), 'api.css'),
  'favicon.svg': () => join(staticDir(), 'favicon.svg'),
  'uplot.js': () => pkgFile('uplot', 'dist/uPlot.iife.min.js'),
  'uplot.css': () => pkgFile('uplot', 'dist/uPlot.min.css'),
  'swagger-ui-bundle.js': () => pkgFile('swagger-ui-dist', 'swagger-ui-bundle.js'),
  'swagger-ui.css': () => pkgFile('swagger-ui-dist', 'swagger-ui.css'),
};
export type AssetName = keyof typeof FILES;

interface Loaded {
  reply: Reply;
  version: string;
}
const loaded = new Map<string, Loaded>();

function load(name: string): Loaded {
  let a = loaded.get(name);
  if (a === undefined) {
    // Source maps are not shipped with the bundles we serve: without the comment no tool asks for one.
    const text = readFileSync(FILES[name]!(), 'utf8').replace(/\n\/[/*]# sourceMappingURL=\S+\s*(\*\/)?\s*$/, '\n');
    const ext = name.slice(name.lastIndexOf('.') + 1);
    a = {
      reply: servedMany({
        body: text,
        contentType: TYPES[ext] ?? 'application/octet-stream',
        headers: { 'Cache-Control': 'public, max-age=604800', 'X-Content-Type-Options': 'nosniff' },
      }),
      version: createHash('sha256').update(text).digest('base64url').slice(0, 10),
    };
    loaded.set(name, a);
  }
  return a;
}

/** `/assets/<name>?v=<digest of its content>`, for a page to reference. */
export function assetUrl(name: AssetName): string {
  return `/assets/${name}?v=${load(name).version}`;
}

/** GET /assets/:file: the files above and nothing else (no path is ever built from the request). */
export function assetRoutes(): RouteDef[] {
  return [
    {
      method: 'GET',
      url: '/assets/:file',
      auth: 'none',
      rateLimit: 'ip',
      hidden: true,
      schema: {
        summary: 'Scripts and styles of the dashboard and the API reference',
        tags: ['meta'],
        response: { 200: { description: 'The file' }, 404: { description: 'NOT_FOUND' } },
      },
      handler: (ctx) => {
        const name = ctx.params['file']!;
        if (!Object.hasOwn(FILES, name)) throw new GatewayError('NOT_FOUND', 'No such asset');
        return load(name).reply;
      },
    },
  ];
}
