/**
 * The string formats the route schemas use, for typebox's `Value.Check` (which knows none by
 * itself): `date-time` as RFC 3339 (what `Date#toISOString` writes), `date` (its first ten
 * characters, a real day) and `uri`.
 */
import { FormatRegistry } from '@sinclair/typebox';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export function registerFormats(): void {
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => RFC3339.test(v) && !Number.isNaN(Date.parse(v)));
  if (!FormatRegistry.Has('date')) {
    FormatRegistry.Set('date', (v) => {
      const ms = Date.parse(`${v}T00:00:00Z`);
      return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(v);
    });
  }
  if (!FormatRegistry.Has('uri')) {
    FormatRegistry.Set('uri', (v) => {
      try {
        return new URL(v).protocol.length > 0;
      } catch {
        return false;
      }
    });
  }
}
