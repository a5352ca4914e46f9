/**
 * The leaves of the settings tree: a typebox schema that carries where the setting is read from,
 * its default and its doc row; the flat list of leaves with their dotted paths; and reading and
 * writing a config object by such a path.
 */
import { KindGuard, Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';

export const Port = Type.Integer({ minimum: 0, maximum: 65535 });
export const PositiveInt = Type.Integer({ minimum: 1 });
export const NonNegInt = Type.Integer({ minimum: 0 });
/** Amounts of DUST in SPECK exceed 2^53, so they are decimal strings. */
export const Speck = Type.String({ pattern: '^[0-9]{1,40}$' });

/** What a setting carries besides its schema: where it is read from, its default, its doc row. */
interface SettingMeta<T> {
  /** Environment variable; absent for file-only settings. */
  readonly env?: string;
  readonly default: T;
  readonly secret?: true;
  readonly doc: string;
}

/** Where a leaf of the settings tree keeps its SettingMeta; validators ignore unknown keywords. */
const META = 'x-setting';
type TSetting<T extends TSchema> = T & { readonly [META]: SettingMeta<Static<T>> };

/**
 * A leaf of the settings tree: a copy of `schema` (shared ones such as Port stay untouched) with
 * its meta. The default is typed by the schema, so a default that disagrees with it does not compile.
 */
export function setting<T extends TSchema>(schema: T, meta: SettingMeta<Static<T>>): TSetting<T> {
  return { ...schema, [META]: meta };
}

function isSetting(schema: TSchema): schema is TSetting<TSchema> {
  return META in schema;
}

export interface Setting extends SettingMeta<unknown> {
  /** Dotted path inside the config object. */
  readonly path: string;
  readonly schema: TSchema;
}

/** The leaves of a settings group, depth first in declaration order, with their dotted paths. */
export function leavesOf(group: TObject, prefix: string): Setting[] {
  return Object.entries(group.properties).flatMap(([key, schema]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (isSetting(schema)) return [{ ...schema[META], path, schema }];
    if (KindGuard.IsObject(schema)) return leavesOf(schema, path);
    throw new Error(`settings tree: ${path} is neither a setting nor a group of settings`);
  });
}

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    cur[part] ??= {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}
