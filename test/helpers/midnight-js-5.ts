/**
 * Midnight.js 5, for the tests that run it unmodified. It needs Node >= 22.12 and the project
 * supports Node 20, so it is not among the project's dependencies: test/midnight-js-5 is its own
 * package, installed with `npm ci --prefix test/midnight-js-5` after the project's `npm ci`, on
 * Node >= 22.12 only (test/midnight-js-5/README.md). The tests import it from there.
 */
import { existsSync } from 'node:fs';

/** Its packages, each installed in test/midnight-js-5/node_modules. */
const PACKAGES = ['@midnight-ntwrk/midnight-js-http-client-proof-provider', '@midnight-ntwrk/midnight-js-indexer-public-data-provider'];

/**
 * Why a Midnight.js 5 test skips here, or false where it runs: on Node >= 22.12 with
 * test/midnight-js-5 installed. CI's main lane (Node 20) allows the first reason only
 * (.ci/allowed-skips); its trixie lane installs the package and allows neither.
 */
export function midnightJs5Skip(): string | false {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (!(major > 22 || (major === 22 && minor >= 12))) {
    return `Midnight.js 5 needs Node >= 22.12 (this is ${process.versions.node}); it runs in the Node 22/24 lane`;
  }
  const missing = PACKAGES.filter((name) => !existsSync(new URL(`../midnight-js-5/node_modules/${name}/package.json`, import.meta.url)));
  if (missing.length > 0) return `Midnight.js 5 is not installed (${missing.join(', ')}): run npm ci --prefix test/midnight-js-5`;
  return false;
}
