/**
 * API-key authentication. Keys are stored only as SHA-256 digests (config file), or given raw for
 * development (NIGHTGATE_API_KEYS), hashed at load. A presented key is hashed and the digest
 * compared with `timingSafeEqual`; the map lookup that finds the candidate works on the digest,
 * whose timing reveals nothing usable about the raw key (SHA-256 preimage resistance).
 * Missing, wrong, wrong-length and revoked keys are indistinguishable to the client.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '../config/index.js';
import { shownPolicy, type KeyPolicyInput } from '../config/key-policy.js';
import { CidrList } from '../config/cidr.js';

const KEY_PREFIX = 'ngk_';

export interface AuthenticatedKey {
  /** Stable id, safe to log. Never the key. */
  readonly id: string;
  readonly name?: string | undefined;
  readonly rateLimit?: { limit: number; windowMs: number } | undefined;
  readonly dustBudget?: bigint | undefined;
  readonly maxFee?: bigint | undefined;
  /** May read every key's usage (GET /usage). */
  readonly admin?: boolean | undefined;
  /** What the key's DUST may pay for (docs/policies.md); absent: anything. */
  readonly policy?: KeyPolicyInput | undefined;
  readonly source: 'config' | 'env' | 'generated' | 'trusted-network';
}

export function sha256Hex(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** A new random key with a recognisable prefix (so leaked keys can be found by secret scanners). */
export function mintKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** The key from `X-API-Key: <key>` or `Authorization: Bearer <key>` (RFC 6750 §2.1). */
export function presentedKey(xApiKey: string | undefined, authorization: string | undefined): string | undefined {
  if (xApiKey) return xApiKey.trim() || undefined;
  if (authorization && /^bearer\s+/i.test(authorization)) return authorization.replace(/^bearer\s+/i, '').trim() || undefined;
  return undefined;
}

interface StoredKey {
  digest: Buffer;
  key: AuthenticatedKey;
  revoked: boolean;
  /** The config file's record (its limits and policy as written, for what a reload changed). */
  record?: ApiKeyRecord;
}

function storedOf(r: ApiKeyRecord): StoredKey {
  return {
    digest: Buffer.from(r.sha256, 'hex'),
    revoked: r.revoked === true,
    record: r,
    key: {
      id: r.id,
      name: r.name,
      rateLimit: r.rateLimit,
      dustBudget: r.dustBudget === undefined ? undefined : BigInt(r.dustBudget),
      maxFee: r.maxFee === undefined ? undefined : BigInt(r.maxFee),
      ...(r.admin === true ? { admin: true } : {}),
      ...(r.policy !== undefined ? { policy: r.policy } : {}),
      source: 'config',
    },
  };
}

/** A key as GET /usage shows it: what it may sponsor and within which limits. */
export interface KeyDescription {
  source: AuthenticatedKey['source'];
  revoked: boolean;
  admin: boolean;
  rateLimit?: { limit: number; windowMs: number };
  dustBudget?: string;
  maxFee?: string;
  policy?: unknown;
}

/** What a reload changed, by key id (never a key or digest). */
export interface KeyChanges {
  added: string[];
  removed: string[];
  revoked: string[];
  restored: string[];
  /** Name, rate limit, DUST budget, fee cap, admin flag or policy changed. */
  changed: string[];
}

export class KeyStore {
  private byDigest = new Map<string, StoredKey>();
  private trusted: CidrList;

  constructor(records: readonly ApiKeyRecord[], rawKeys: readonly string[], trustedNetworks: readonly string[] = []) {
    for (const r of records) this.byDigest.set(r.sha256, storedOf(r));
    rawKeys.forEach((raw, i) => this.addRaw(raw, `env-${i + 1}`, 'env'));
    this.trusted = new CidrList(trustedNetworks);
  }

  /**
   * Live reload (SIGHUP): the config file's keys and trusted networks replace the current ones in
   * one step; keys from NIGHTGATE_API_KEYS stay. Requests authenticated before keep
   * the key record they got; the next request sees the new one (its limits, budget, fee cap).
   */
  replace(records: readonly ApiKeyRecord[], trustedNetworks: readonly string[]): KeyChanges {
    const next = new Map<string, StoredKey>();
    // The development key minted at start (nothing configured) lasts until keys are configured.
    const keepGenerated = records.length === 0 && trustedNetworks.length === 0;
    for (const [hex, s] of this.byDigest) if (s.key.source === 'env' || (s.key.source === 'generated' && keepGenerated)) next.set(hex, s);
    for (const r of records) next.set(r.sha256, storedOf(r));
    const before = new Map([...this.byDigest.values()].filter((s) => s.key.source === 'config').map((s) => [s.key.id, s]));
    const after = new Map(records.map((r) => [r.id, next.get(r.sha256)!]));
    const changes: KeyChanges = { added: [], removed: [], revoked: [], restored: [], changed: [] };
    for (const [id, a] of after) {
      const b = before.get(id);
      if (!b) changes.added.push(id);
      else if (!b.revoked && a.revoked) changes.revoked.push(id);
      else if (b.revoked && !a.revoked) changes.restored.push(id);
      else if (!b.digest.equals(a.digest) || limitsOf(b) !== limitsOf(a)) changes.changed.push(id);
    }
    for (const id of before.keys()) if (!after.has(id)) changes.removed.push(id);
    this.trusted = new CidrList(trustedNetworks);
    this.byDigest = next;
    return changes;
  }

  /** Keys known now, by state. */
  counts(): { active: number; revoked: number } {
    let active = 0;
    let revoked = 0;
    for (const s of this.byDigest.values()) {
      if (s.revoked) revoked++;
      else active++;
    }
    return { active, revoked };
  }

  /** Register a raw key (development keys); returns its id. */
  addRaw(raw: string, id: string, source: 'env' | 'generated'): string {
    const hex = sha256Hex(raw);
    this.byDigest.set(hex, { digest: Buffer.from(hex, 'hex'), revoked: false, key: { id, source } });
    return id;
  }

  /**
   * What the key `id` may do, as configured: its limits, admin flag and policy as written (shown:
   * the webhook's secret and its URL's credentials redacted; GET /usage). Undefined for a key not
   * in the configuration.
   */
  describe(id: string): KeyDescription | undefined {
    for (const s of this.byDigest.values()) {
      if (s.key.id !== id) continue;
      const r = s.record;
      const policy = r?.policy === undefined ? undefined : shownPolicy(r.policy);
      return {
        source: s.key.source,
        revoked: s.revoked,
        admin: r?.admin === true,
        ...(r?.rateLimit ? { rateLimit: r.rateLimit } : {}),
        ...(r?.dustBudget ? { dustBudget: r.dustBudget } : {}),
        ...(r?.maxFee ? { maxFee: r.maxFee } : {}),
        ...(policy ? { policy } : {}),
      };
    }
    return undefined;
  }

  get size(): number {
    return this.byDigest.size;
  }

  authenticate(raw: string | undefined): AuthenticatedKey | undefined {
    if (raw === undefined || raw.length > 512) return undefined;
    const hex = sha256Hex(raw);
    const stored = this.byDigest.get(hex);
    if (!stored) return undefined;
    const ok = timingSafeEqual(stored.digest, Buffer.from(hex, 'hex'));
    return ok && !stored.revoked ? stored.key : undefined;
  }

  /** A client inside `auth.trustedNetworks` is let in without a key, under a per-network id. */
  trustedKey(ip: string): AuthenticatedKey | undefined {
    const cidr = this.trusted.match(ip);
    return cidr === undefined ? undefined : { id: `trusted:${cidr}`, source: 'trusted-network' };
  }
}

function limitsOf(s: StoredKey): string {
  const r = s.record;
  return JSON.stringify([r?.name ?? null, r?.rateLimit ?? null, r?.dustBudget ?? null, r?.maxFee ?? null, r?.admin ?? false, r?.policy ?? null]);
}
