/**
 * Loads a NATIVE uWebSockets.js build. uWS's own repository is not an npm package, so we take the
 * binary from one of two registry packages (DESIGN.md, "The front"):
 *  1. `@btc-vision/uwebsockets.js` — Node 20–25, needs glibc ≥ 2.38;
 *  2. the `.node` binary inside `@trufflesuite/uws-js-unofficial` — Node ≤ 20 (ABI 115), glibc 2.36.
 * We require the `.node` files directly: the packages' own entry points silently fall back to a
 * pure-JS server on failure, which would look like it works while being an order slower.
 * If neither loads, `loadUws` throws UwsLoadError with a message naming Node, glibc and the fix.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

function packageDir(pkg: string): string | undefined {
  try {
    return dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    return undefined;
  }
}

function candidates(): Array<{ source: string; file: string }> {
  const name = binaryName();
  const out: Array<{ source: string; file: string }> = [];
  const btc = packageDir('@btc-vision/uwebsockets.js');
  if (btc) out.push({ source: '@btc-vision/uwebsockets.js', file: join(btc, name) });
  const truffle = packageDir('@trufflesuite/uws-js-unofficial');
  if (truffle) {
    out.push({ source: '@trufflesuite/uws-js-unofficial', file: join(truffle, 'dist', name) });
    out.push({ source: '@trufflesuite/uws-js-unofficial', file: join(truffle, 'binaries', name) });
  }
  return out;
}

let loaded: LoadedUws | undefined;

export function loadUws(): LoadedUws {
  if (loaded) return loaded;
  const failures: string[] = [];
  for (const c of candidates()) {
    try {
      const uws = require(c.file) as Uws;
      if (typeof uws.App !== 'function') throw new Error('not a uWS binary');
      loaded = { uws, source: c.source, file: c.file };
      return loaded;
    } catch (err) {
      failures.push(`${c.source}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw new UwsLoadError(
    `no native uWebSockets.js build loads on Node ${process.version} (ABI ${process.versions.modules}, ` +
      `${process.platform}-${process.arch}, glibc ${glibcVersion()}). Tried:\n  ${failures.join('\n  ') || 'no candidate package installed'}\n` +
      'Fix: on Node 20–25 with glibc ≥ 2.38 install @btc-vision/uwebsockets.js; on Node 20 with glibc 2.36 ' +
      'install @trufflesuite/uws-js-unofficial (run `npm ci`). nightgate never runs on a JavaScript fallback.',
  );
}

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
