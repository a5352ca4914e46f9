/**
 * Key material for in-process proving (the wasm backend) and circuit IR for `/check`: read from a
 * MIDNIGHT_PP-layout directory or from the IR copies shipped in native/circuits/, every file
 * checked against its pinned SHA-256 (native/key-pins.ts) before use. Nothing is ever downloaded:
 * a missing file fails at once with "prover key material not provisioned for <circuit>".
 *
 * Verified bytes are kept per thread (a handful of files, at most tens of MB), so each is read and
 * hashed once per worker.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../src/core/errors.js';
import { BUILTIN_CIRCUITS, PARAMS_SHA256, paramsFile, type BuiltinCircuit } from './key-pins.js';

export interface ProvingKeys {
  proverKey: Uint8Array;
  verifierKey: Uint8Array;
  ir: Uint8Array;
}

const verified = new Map<string, Promise<Uint8Array>>();

export function notProvisioned(circuit: string, detail: string): GatewayError {
  return new GatewayError('PROVER_KEYS_MISSING', `prover key material not provisioned for ${circuit}: ${detail}`);
}

/** Read `path` and check it against `sha256`; missing or unreadable → PROVER_KEYS_MISSING, wrong → PROVER_KEYS_INVALID. */
export function readPinned(path: string, sha256: string, circuit: string, what: string): Promise<Uint8Array> {
  const key = `${path}\0${sha256}`;
  let p = verified.get(key);
  if (!p) {
    p = (async () => {
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw notProvisioned(circuit, code === 'ENOENT' ? `${what} ${path} is missing` : `${what} ${path} cannot be read (${code ?? 'error'})`);
      }
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== sha256) {
        throw new GatewayError(
          'PROVER_KEYS_INVALID',
          `prover key material for ${circuit} failed its SHA-256 check: ${path} hashes to ${actual}, expected ${sha256}; replace it with the official file`,
        );
      }
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    })();
    verified.set(key, p);
    // A failure is not remembered: the operator may provision the file while we run.
    p.catch(() => verified.delete(key));
  }
  return p;
}

export function builtinCircuit(keyLocation: string): BuiltinCircuit | undefined {
  return BUILTIN_CIRCUITS.get(keyLocation);
}

/** The prover key, verifier key and IR of a built-in circuit, from the key directory. */
export async function builtinProvingKeys(keyDir: string, circuit: BuiltinCircuit): Promise<ProvingKeys> {
  const base = join(keyDir, circuit.keyPath);
  // One after the other, so the first missing file named is always the prover key's.
  const proverKey = await readPinned(`${base}.prover`, circuit.sha256.prover, circuit.keyLocation, 'prover key');
  const verifierKey = await readPinned(`${base}.verifier`, circuit.sha256.verifier, circuit.keyLocation, 'verifier key');
  return { proverKey, verifierKey, ir: await builtinIr(circuit) };
}

/** The KZG parameters for 2^k rows, from the key directory. */
export function kzgParams(keyDir: string, k: number, circuit: string): Promise<Uint8Array> {
  const sha = PARAMS_SHA256[k];
  if (sha === undefined) return Promise.reject(notProvisioned(circuit, `no public parameters exist for k=${k}`));
  return readPinned(join(keyDir, paramsFile(k)), sha, circuit, 'public parameters');
}

/** nightgate's own directory (holds package.json): the same code runs from the sources and from dist/. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const p = join(dir, 'package.json');
    if (existsSync(p) && (JSON.parse(readFileSync(p, 'utf8')) as { name?: string }).name === 'nightgate') return dir;
    dir = dirname(dir);
  }
  throw new GatewayError('PROVER_KEYS_MISSING', 'cannot find the nightgate installation directory holding native/circuits/');
}

let circuitsDir: string | undefined;

/** A built-in circuit's IR, from the copy shipped with nightgate (native/circuits/). */
export function builtinIr(circuit: BuiltinCircuit): Promise<Uint8Array> {
  circuitsDir ??= join(packageRoot(), 'native', 'circuits');
  return readPinned(join(circuitsDir, circuit.irFile), circuit.sha256.ir, circuit.keyLocation, 'circuit IR');
}

interface KeyDirReport {
  /** Built-in circuits whose prover and verifier keys are present (not yet hash-checked). */
  circuits: string[];
  /** Built-in circuits with a missing file. */
  missing: string[];
  /** k values whose public parameters are present. */
  params: number[];
}

/** What a key directory holds, by file presence only (hashes are checked on first use). */
export function inspectKeyDir(keyDir: string): KeyDirReport {
  const circuits: string[] = [];
  const missing: string[] = [];
  for (const c of BUILTIN_CIRCUITS.values()) {
    const base = join(keyDir, c.keyPath);
    (existsSync(`${base}.prover`) && existsSync(`${base}.verifier`) ? circuits : missing).push(c.keyLocation);
  }
  const params = PARAMS_SHA256.map((_, k) => k).filter((k) => existsSync(join(keyDir, paramsFile(k))));
  return { circuits, missing, params };
}
