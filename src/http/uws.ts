/**
 * Loads a NATIVE uWebSockets.js build. uWS's own repository is not an npm package, so we take the
 * binary from one of two registry packages (DESIGN.md, "The front"):
 *  1. `@btc-vision/uwebsockets.js` — Node 20–25, needs glibc ≥ 2.38;
 *  2. the `.node` binary inside `@trufflesuite/uws-js-unofficial` — Node ≤ 20 (ABI 115), glibc 2.36.
 * We require the `.node` files directly: the packages' own entry points silently fall back to a
 * pure-JS server on failure, which would look like it works while being an order slower.
 * The packages are found in the folders Node searches, not through `require.resolve`: the first
 * one's `exports` map hides its package.json (ERR_PACKAGE_PATH_NOT_EXPORTED), which once made it
 * look absent.
 * If neither loads, `loadUws` throws UwsLoadError naming Node, glibc, what each package said and
 * the supported combinations.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as UwsTypes from '@trufflesuite/uws-js-unofficial';

export type Uws = typeof UwsTypes;
export type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);

export class UwsLoadError extends Error {
  override name = 'UwsLoadError';
}

export interface LoadedUws {
  uws: Uws;
  /** Which package the native binary came from, and its file. */
  source: string;
  file: string;
}

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

type Candidate = { source: string; file: string } | { source: string; absent: string };

function candidates(find: (pkg: string) => string | undefined): Candidate[] {
  const name = binaryName();
  return PACKAGES.map(({ source, dirs }) => {
    const dir = find(source);
    if (!dir) return { source, absent: 'not installed (run `npm ci`)' };
    const file = dirs.map((d) => join(dir, d, name)).find((f) => existsSync(f));
    return file ? { source, file } : { source, absent: `has no ${name} (no build for this Node ABI and platform)` };
  });
}

let loaded: LoadedUws | undefined;

export function loadUws(): LoadedUws {
  return (loaded ??= loadFrom(packageDir));
}

/** `loadUws` with the package lookup given: for tests of the failure paths. */
export function loadFrom(find: (pkg: string) => string | undefined): LoadedUws {
  const failures: string[] = [];
  for (const c of candidates(find)) {
    if ('absent' in c) {
      failures.push(`${c.source}: ${c.absent}`);
      continue;
    }
    try {
      const uws = require(c.file) as Uws;
      if (typeof uws.App !== 'function') throw new Error('not a uWS binary');
      return { uws, source: c.source, file: c.file };
    } catch (err) {
      failures.push(`${c.source}: ${c.file}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new UwsLoadError(
    `no native uWebSockets.js build loads on Node ${process.version} (ABI ${process.versions.modules}, ` +
      `${process.platform}-${process.arch}, glibc ${glibcVersion()}). Tried:\n  ${failures.join('\n  ')}\n` +
      `Supported: ${SUPPORTED}. nightgate never runs on a JavaScript fallback.`,
  );
}

/** The support matrix (README, "Requirements"; package.json `engines`). */
export const SUPPORTED =
  'Node 22 or 24 on Linux with glibc ≥ 2.38 (e.g. Debian 13, Ubuntu 24.04), through @btc-vision/uwebsockets.js; ' +
  'Node 20 with glibc ≥ 2.36 through @trufflesuite/uws-js-unofficial (Node 20 is past its end of life)';

/**
 * `app.listen(host, port, LISTEN_EXCLUSIVE_PORT, cb)`: libusockets' LIBUS_LISTEN_EXCLUSIVE_PORT.
 * Without it, builds that set SO_REUSEPORT let a second server bind the same port, and the kernel
 * then splits connections between the two.
 */
export const LISTEN_EXCLUSIVE_PORT = 1;

/** True when `mod` is a native addon object (not a JS module): uWS's App is a native function. */
export function isNativeUws(l: LoadedUws): boolean {
  return l.file.endsWith('.node') && /\[native code\]/.test(Function.prototype.toString.call(l.uws.App));
}
