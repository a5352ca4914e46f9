/**
 * The proof server's wire format (midnight-ledger `proof-server/src/endpoints.rs`): every body is
 * a tagged value, `midnight:<type tag>:` followed by its serialization. Requests are walked here
 * on the main thread so a malformed body is answered 400 — naming what is wrong — before it costs
 * a worker or an upstream round trip. The walk only finds boundaries; the ledger (in the workers)
 * or the upstream prover still does the real, canonical parse. A body of a version nightgate does
 * not read (a preimage other than V2, a circuit IR other than ZKIR v2) is not walked at all: it
 * throws `UnreadableVersion`, and the routes pass it to a proof server unchanged.
 *
 *   /prove  (ProofPreimageVersioned, Option<ProvingKeyMaterial>, Option<Fr>)
 *   /check  (ProofPreimageVersioned, Option<WrappedIr>)
 *   /k      tagged ZKIR source (`ir-source[v2]`; Compact 0.37 builds `ir-source[v3]`)
 *   ProofPreimage = inputs: vec<Fr>, private_transcript: vec<Fr>, public_transcript_inputs: vec<Fr>,
 *                   public_transcript_outputs: vec<Fr>, binding_input: Fr,
 *                   communications_commitment: Option<(Fr, Fr)>, key_location: string
 */
import { Reader, WireError, encodeCompact } from './compact.js';

export { WireError } from './compact.js';

export const TAG = {
  proveRequest: 'midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):',
  checkRequest: 'midnight:(proof-preimage-versioned,option(wrapped-ir)):',
  preimage: 'midnight:proof-preimage:',
  preimageVersioned: 'midnight:proof-preimage-versioned:',
  proof: 'midnight:proof-versioned:',
  checkResult: 'midnight:vec(option(u64)):',
  ir: 'midnight:ir-source[v2]:',
} as const;

/**
 * `ProofPreimageVersioned::V2` — the only preimage version either era's ledger package reads
 * (ledger-v8 8.1.0 and ledger-v9 1.0.0-rc.3 both refuse discriminant 2) and zkir-v2 proves.
 * Proof server 9 also proves V3 (discriminant 2: the ZKIR v3 circuits of Compact 0.37 /
 * Midnight.js 6), whose layout nightgate does not walk.
 */
const PREIMAGE_V2 = 1;

/** A preimage version's name as the proof server lists it: discriminant 1 is V2. */
function preimageVersionName(discriminant: number): string {
  return `V${discriminant + 1}`;
}

/**
 * The body is of a version nightgate does not read: another preimage version than V2, or another
 * circuit IR than ZKIR v2. Its layout is unknown here, so it is not walked. A proof server may read
 * it (the proof-server backends are sent it unchanged); the in-process backends cannot.
 */
export class UnreadableVersion extends WireError {
  override name = 'UnreadableVersion';

  constructor(
    /** The version as a proof server names it: `V3` (a preimage), `ZKIR v3` (a circuit IR). */
    readonly version: string,
    /** What the body holds, e.g. `a V3 proof preimage (discriminant 2 at byte 74)`. */
    readonly holds: string,
    /** What nightgate reads instead: `V2 proof preimages`, `ZKIR v2 circuits`. */
    readonly reads: string,
  ) {
    super(`the body holds ${holds}; nightgate reads only ${reads}`);
  }
}

/** A byte range of the request body. */
interface Span {
  start: number;
  end: number;
}

export interface PreimageInfo {
  /** The preimage's serialization after its version byte. */
  body: Span;
  keyLocation: string;
}

interface ProveRequest extends PreimageInfo {
  keyMaterial: { proverKey: Span; verifierKey: Span; ir: Span } | undefined;
  bindingInput: bigint | undefined;
}

interface CheckRequest extends PreimageInfo {
  ir: Span | undefined;
}

const enc = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });
const TAG_BYTES = Object.fromEntries(Object.entries(TAG).map(([k, v]) => [k, enc.encode(v)])) as Record<keyof typeof TAG, Uint8Array>;

export function hasTag(bytes: Uint8Array, tag: keyof typeof TAG): boolean {
  const t = TAG_BYTES[tag];
  if (bytes.length < t.length) return false;
  for (let i = 0; i < t.length; i++) if (bytes[i] !== t[i]) return false;
  return true;
}

/** What a body starts with, for error messages: its tag if it has one, else its first bytes. */
function describeStart(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 120)).toString('latin1');
  if (head.startsWith('midnight:')) {
    const end = head.indexOf(':', 9);
    const tag = end === -1 ? `${head.replace(/[^\x20-\x7e]/g, '.')}…` : head.slice(0, end + 1);
    return `the tag "${tag}"`;
  }
  if (bytes.length === 0) return 'nothing (empty body)';
  return `bytes 0x${Buffer.from(bytes.subarray(0, 16)).toString('hex')}${bytes.length > 16 ? '…' : ''} (no midnight: tag)`;
}

function expectTag(bytes: Uint8Array, tag: keyof typeof TAG, what: string): void {
  if (!hasTag(bytes, tag)) throw new WireError(`${what} must start with the tag "${TAG[tag]}"; the body starts with ${describeStart(bytes)}`);
}

function skipFr(r: Reader, what: string): void {
  r.compactBig(what, 32);
}

function skipFrVec(r: Reader, what: string): void {
  const n = r.count(what);
  for (let i = 0; i < n; i++) skipFr(r, `${what}[${i}]`);
}

function option(r: Reader, what: string): boolean {
  const at = r.pos;
  const b = r.byte(what);
  if (b > 1) throw new WireError(`invalid option tag ${b} for ${what} at byte ${at}`);
  return b === 1;
}

function bytesField(r: Reader, what: string): Span {
  const n = r.length(what);
  const start = r.take(n, what);
  return { start, end: start + n };
}

function readPreimage(r: Reader): PreimageInfo {
  const at = r.pos;
  const version = r.byte('preimage version');
  if (version !== PREIMAGE_V2) {
    const name = preimageVersionName(version);
    throw new UnreadableVersion(
      name,
      `a ${name} proof preimage (discriminant ${version} at byte ${at})`,
      `V2 proof preimages (discriminant ${PREIMAGE_V2}), the version both ledger 8 and ledger 9 build`,
    );
  }
  const start = r.pos;
  skipFrVec(r, 'preimage inputs');
  skipFrVec(r, 'preimage private transcript');
  skipFrVec(r, 'preimage public transcript inputs');
  skipFrVec(r, 'preimage public transcript outputs');
  skipFr(r, 'preimage binding input');
  if (option(r, 'preimage communications commitment')) {
    skipFr(r, 'communications commitment');
    skipFr(r, 'communications commitment randomness');
  }
  const loc = bytesField(r, 'key location');
  let keyLocation: string;
  try {
    keyLocation = utf8.decode(r.bytes.subarray(loc.start, loc.end));
  } catch {
    throw new WireError(`key location at byte ${loc.start} is not valid UTF-8`);
  }
  if (keyLocation.length === 0) throw new WireError('key location is empty');
  return { body: { start, end: r.pos }, keyLocation };
}

function expectEnd(r: Reader, what: string): void {
  if (r.remaining !== 0) throw new WireError(`${r.remaining} unexpected bytes after the ${what} at byte ${r.pos}`);
}

/** Walk a `/prove` body (what either era's `createProvingPayload` builds: the same bytes). Throws WireError. */
export function parseProveRequest(bytes: Uint8Array): ProveRequest {
  expectTag(bytes, 'proveRequest', 'a /prove body');
  const r = new Reader(bytes, TAG_BYTES.proveRequest.length);
  const pre = readPreimage(r);
  let keyMaterial: ProveRequest['keyMaterial'];
  if (option(r, 'proving key material')) {
    keyMaterial = { proverKey: bytesField(r, 'prover key'), verifierKey: bytesField(r, 'verifier key'), ir: bytesField(r, 'circuit IR') };
  }
  const bindingInput = option(r, 'binding input') ? r.compactBig('binding input', 32) : undefined;
  expectEnd(r, 'proving request');
  return { ...pre, keyMaterial, bindingInput };
}

/** Walk a `/check` body (what either era's `createCheckPayload` builds). Throws WireError. */
export function parseCheckRequest(bytes: Uint8Array): CheckRequest {
  expectTag(bytes, 'checkRequest', 'a /check body');
  const r = new Reader(bytes, TAG_BYTES.checkRequest.length);
  const pre = readPreimage(r);
  const ir = option(r, 'wrapped IR') ? bytesField(r, 'wrapped IR') : undefined;
  expectEnd(r, 'check request');
  return { ...pre, ir };
}

/** `midnight:ir-source[<version>]:`, the tag of every ZKIR version (`v2`, `v3`, `v3-generic`). */
const IR_TAG = /^midnight:ir-source\[([0-9A-Za-z._-]{1,32})\]:/;

/** A `/k` body is a tagged ZKIR v2 source; another ZKIR version throws `UnreadableVersion`. */
export function checkIrSource(bytes: Uint8Array): void {
  if (hasTag(bytes, 'ir')) return;
  const v = IR_TAG.exec(Buffer.from(bytes.subarray(0, 64)).toString('latin1'))?.[1];
  if (v !== undefined) throw new UnreadableVersion(`ZKIR ${v}`, `a ZKIR ${v} circuit (the tag "midnight:ir-source[${v}]:")`, 'ZKIR v2 circuits');
  expectTag(bytes, 'ir', 'a /k body (a circuit IR)');
}

export function slice(bytes: Uint8Array, span: Span): Uint8Array {
  return bytes.subarray(span.start, span.end);
}

function concat(tag: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, tag.length));
  out.set(tag, 0);
  let at = tag.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The preimage as a ledger `ProvingProvider` receives it (`midnight:proof-preimage:` …). */
export function unversionedPreimage(bytes: Uint8Array, info: PreimageInfo): Uint8Array {
  return concat(TAG_BYTES.preimage, slice(bytes, info.body));
}

/** The preimage as `PreProof.deserialize` reads it (`midnight:proof-preimage-versioned:` V2 …). */
export function versionedPreimage(bytes: Uint8Array, info: PreimageInfo): Uint8Array {
  return concat(TAG_BYTES.preimageVersioned, Uint8Array.of(PREIMAGE_V2), slice(bytes, info.body));
}

/**
 * `/check` response: `tagged_serialize(Vec<Option<u64>>)`. The ledger parses it
 * (`parseCheckResult`) but has no encoder, so this is the one hand-written serialization; the
 * tests hold it to `parseCheckResult` on arbitrary inputs.
 */
export function encodeCheckResult(values: readonly (bigint | undefined)[]): Uint8Array {
  const parts: Uint8Array[] = [encodeCompact(BigInt(values.length))];
  for (const v of values) parts.push(v === undefined ? Uint8Array.of(0) : concat(Uint8Array.of(1), encodeCompact(v)));
  return concat(TAG_BYTES.checkResult, ...parts);
}
