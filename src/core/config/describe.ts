/**
 * The configuration described for people: as it may be logged, and as the table of every setting
 * in docs/configuration.md.
 */
import { redactDeep } from '../log/url-redaction.js';
import { shownPolicy, type KeyPolicyInput } from './key-policy.js';
import { SETTINGS, type Config } from './schema.js';
import { getPath, setPath } from './setting.js';

/**
 * The configuration as it may be logged: secrets replaced, key hashes kept (they are not secret),
 * and every URL's credentials and query string redacted (indexer and prover URLs may carry them).
 */
export function redactedConfig(config: Config): unknown {
  const copy: Record<string, unknown> = structuredClone(config);
  for (const s of SETTINGS) {
    if (!s.secret) continue;
    const v = getPath(copy, s.path);
    const redacted = Array.isArray(v) ? `<${v.length} redacted>` : '<redacted>';
    setPath(copy, s.path, redacted);
  }
  // A key's webhook secret signs what nightgate asks its owner's service: never logged.
  const keys = getPath(copy, 'auth.keys') as Array<{ policy?: KeyPolicyInput }> | undefined;
  for (const k of keys ?? []) if (k.policy !== undefined) k.policy = shownPolicy(k.policy);
  return redactDeep(copy);
}

/** Markdown table of every setting, for docs/configuration.md: `nightgate config-doc` prints it. */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.path}\` | ${s.env ? `\`${s.env}\`` : '(file only)'} | \`${JSON.stringify(s.default)}\` | ${s.doc} |`);
  return ['| setting | env var | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
