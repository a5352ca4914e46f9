/**
 * Loads a NATIVE uWebSockets.js build. uWS's own repository is not an npm package, so we take the
 * binary from one of two registry packages (docs/support.md, "Node, system, uWS build"):
 *  1. `@btc-vision/uwebsockets.js` — Node 20–25, needs glibc ≥ 2.38;
 *  2. the `.node` binary inside `@trufflesuite/uws-js-unofficial` — Node ≤ 20 (ABI 115), glibc 2.36.
 * We require the `.node` files directly: the packages' own entry points silently fall back to a
 * pure-JS server on failure, which would look like it works while being an order slower.
 * The packages are found in the folders Node searches, not through `require.resolve`: the first
 * one's `exports` map hides its package.json (ERR_PACKAGE_PATH_NOT_EXPORTED), which once made it
 * look absent.
 * If neither loads, `loadUws` throws UwsLoadError naming Node, glibc, what each package said, the
 * supported combinations and what to change on this system.
 *
 * Before the binary is loaded, UWS_HTTP_MAX_HEADERS_SIZE (read once, when the binary loads) is set
 * to HEADER_SECTION_BYTES unless the environment sets it: the 20.57 build refuses any header section
 * over it with its own 431 page, 4 KiB by default, which would pre-empt server.maxHeaderBytes (JSON
 * 431, 16 KiB by default). The 20.30 build has no such setting (docs/support.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as UwsTypes from '@trufflesuite/uws-js-unofficial';

export type Uws = typeof UwsTypes;
export type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_listen_socket, us_socket_context_t } from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);

export class UwsLoadError extends Error {
  override name = 'UwsLoadError';
}

interface LoadedUws {
  uws: Uws;
  /** Which package the native binary came from, that package's version, and the binary's file. */
  source: string;
  version: string;
  file: string;
}

/**
 * The largest request header section (request line and fields) the 20.57 build parses; above it,
 * uWS answers 431 itself and closes. Well above server.maxHeaderBytes' default (16 KiB), so that
 * nightgate's own limit answers first, and at most this much is buffered per connection while a
 * header section is incomplete. An operator may set UWS_HTTP_MAX_HEADERS_SIZE instead.
 */
export const HEADER_SECTION_BYTES = 128 * 1024;

function glibcVersion(): string {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime ?? 'unknown (not glibc?)';
}

function binaryName(): string {
  return `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
}

/** The installed package's folder, from the node_modules folders Node would search. */
export function packageDir(pkg: string, from: readonly string[] = require.resolve.paths(pkg) ?? []): string | undefined {
  for (const dir of from) {
    if (existsSync(join(dir, pkg, 'package.json'))) return join(dir, pkg);
  }
  return undefined;
}

/** Where each package keeps its binaries, relative to its folder. */
const PACKAGES: ReadonlyArray<{ source: string; dirs: readonly string[] }> = [
  { source: '@btc-vision/uwebsockets.js', dirs: ['.'] },
  { source: '@trufflesuite/uws-js-unofficial', dirs: ['dist', 'binaries'] },
];

type Candidate = { source: string; dir: string; file: string } | { source: string; absent: string };

function candidates(find: (pkg: string) => string | undefined): Candidate[] {
  const name = binaryName();
  return PACKAGES.map(({ source, dirs }) => {
    const dir = find(source);
    if (!dir) return { source, absent: 'not installed (run `npm ci`)' };
    const file = dirs.map((d) => join(dir, d, name)).find((f) => existsSync(f));
    return file ? { source, dir, file } : { source, absent: `has no ${name} (no build for this Node ABI and platform)` };
  });
}

let loaded: LoadedUws | undefined;

export function loadUws(): LoadedUws {
  return (loaded ??= loadFrom(packageDir));
}

/** `loadUws` with the package lookup given: for tests of the failure paths. */
export function loadFrom(find: (pkg: string) => string | undefined): LoadedUws {
  const failures: string[] = [];
  process.env['UWS_HTTP_MAX_HEADERS_SIZE'] ??= String(HEADER_SECTION_BYTES);
  for (const c of candidates(find)) {
    if ('absent' in c) {
      failures.push(`${c.source}: ${c.absent}`);
      continue;
    }
    try {
      const uws = require(c.file) as Uws;
      if (typeof uws.App !== 'function') throw new Error('not a uWS binary');
      return { uws, source: c.source, version: packageVersion(c.dir), file: c.file };
    } catch (err) {
      failures.push(`${c.source}: ${c.file}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new UwsLoadError(
    `no native uWebSockets.js build loads on Node ${process.version} (ABI ${process.versions.modules}, ` +
      `${process.platform}-${process.arch}, glibc ${glibcVersion()}). Tried:\n  ${failures.join('\n  ')}\n` +
      `Supported: ${SUPPORTED}. ${remedy(failures)}nightgate never runs on a JavaScript fallback.`,
  );
}

function packageVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** What to change here, from this process's Node and glibc (the supported combinations above). */
export function remedy(failures: readonly string[], node = Number(process.versions.node.split('.')[0]), glibc = glibcVersion()): string {
  if (failures.some((f) => f.endsWith('not installed (run `npm ci`)'))) return 'Run `npm ci` in the nightgate folder. ';
  const m = /^(\d+)\.(\d+)/.exec(glibc);
  if (!m) return 'Run it on Linux with glibc (this system reports none). ';
  const atLeast = (major: number, minor: number): boolean => Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
  if (node !== 20 && node !== 22 && node !== 24) return `Node ${node} is not supported: use Node ${atLeast(2, 38) ? '22 or 24' : '20'} on this system. `;
  if (node === 20 && !atLeast(2, 36)) return `This system's glibc ${glibc} is older than every build needs (2.36). `;
  if (node !== 20 && !atLeast(2, 38))
    return `This system's glibc ${glibc} is older than the 2.38 Node ${node} needs: run Node 20 here, or Node ${node} on a system with glibc ≥ 2.38. `;
  return '';
}

/** The support matrix (docs/support.md; package.json `engines`). */
const SUPPORTED =
  'Node 22 or 24 on Linux with glibc ≥ 2.38 (e.g. Debian 13, Ubuntu 24.04), through @btc-vision/uwebsockets.js; ' +
  'Node 20 with glibc ≥ 2.36 through @trufflesuite/uws-js-unofficial (Node 20 is past its end of life)';

/**
 * `app.listen(host, port, LISTEN_EXCLUSIVE_PORT, cb)`: libusockets' LIBUS_LISTEN_EXCLUSIVE_PORT.
 * Without it, builds that set SO_REUSEPORT let a second server bind the same port, and the kernel
 * then splits connections between the two.
 */
export const LISTEN_EXCLUSIVE_PORT = 1;
