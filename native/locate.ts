/**
 * Find the `midnight-proof-server` binary the native backend runs, and say exactly what is wrong
 * when it cannot: no npm package ships it (LEDGER.md), so it is always an operator-provided path.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { GatewayError } from '../src/core/errors.js';

const SETTING = 'prover.nativeBinary (NIGHTGATE_PROVER_BINARY)';

/** The absolute path of an executable proof server, or a GatewayError naming the setting and the fix. */
export function locateProofServer(configured: string, cwd: string): string {
  if (!configured) {
    throw new GatewayError('PROVER_BINARY_NOT_FOUND', `the native backend needs ${SETTING}: the path of midnight-proof-server`);
  }
  if (!isAbsolute(configured) && !configured.includes(sep) && !configured.includes('/')) {
    throw new GatewayError(
      'PROVER_BINARY_NOT_FOUND',
      `${SETTING} is "${configured}", a bare name; give the path of the binary, e.g. /usr/local/bin/${configured}`,
    );
  }
  const path = resolve(cwd, configured);
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GatewayError(
      'PROVER_BINARY_NOT_FOUND',
      code === 'ENOENT'
        ? `midnight-proof-server not found at ${path} (${SETTING}); install it there or point the setting at it`
        : `cannot inspect ${path} (${SETTING}): ${code ?? (err as Error).message}`,
    );
  }
  if (!isFile) throw new GatewayError('PROVER_BINARY_NOT_FOUND', `${path} (${SETTING}) is not a file`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new GatewayError('PROVER_BINARY_NOT_EXECUTABLE', `${path} (${SETTING}) is not executable by this user; run: chmod +x ${path}`);
  }
  return path;
}
