/**
 * Refusals as values: every error nightgate answers has one body, `{error, message, code}`, with
 * `code` from the server's catalogue; the client rejects with it as a `NightgateError`, so callers
 * branch on `code`, never on the texts.
 */
import type { components } from './openapi-types.js';

/** The server's error codes: the `code` enum of the OpenAPI document's `Error` schema, which lists its catalogue. */
export type ErrorCode = components['schemas']['Error']['code'];

/** `UNKNOWN`: the answer was an error but not nightgate's body (a proxy's page, a cut connection's remains). */
export type NightgateErrorCode = ErrorCode | 'UNKNOWN';

export class NightgateError extends Error {
  /** The HTTP status. */
  readonly status: number;
  readonly code: NightgateErrorCode;
  /** The status title the server sent as `error` (e.g. `Not Found`). */
  readonly title: string;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;
  /** The key's policy rule that refused a sponsorship (POLICY_DENIED, USER_LIMIT, POLICY_WEBHOOK_UNAVAILABLE), e.g. `allow.contracts`. */
  readonly rule: string | undefined;
  /** The whole error body: some errors add details (`GET /readyz`: `status`, `missing`). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: NightgateErrorCode;
    message: string;
    title?: string;
    retryAfter?: number | undefined;
    body?: unknown;
    rule?: string | undefined;
  }) {
    super(init.message);
    this.name = 'NightgateError';
    this.status = init.status;
    this.code = init.code;
    this.title = init.title ?? '';
    this.retryAfter = init.retryAfter;
    this.rule = init.rule;
    this.body = init.body;
  }
}

/** True when `err` is a NightgateError, and of one of `codes` when any are given. */
export function isNightgateError(err: unknown, ...codes: NightgateErrorCode[]): err is NightgateError {
  return err instanceof NightgateError && (codes.length === 0 || codes.includes(err.code));
}

/** The error an answer with status ≥ 400 stands for; its body read as text (it may not be JSON). */
export function errorFromAnswer(status: number, text: string, retryAfter: number | undefined): NightgateError {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: not nightgate's body.
  }
  const b = body as { code?: unknown; message?: unknown; error?: unknown; rule?: unknown } | null;
  if (b !== null && typeof b === 'object' && typeof b.code === 'string' && typeof b.message === 'string') {
    return new NightgateError({
      status,
      code: b.code as ErrorCode,
      message: b.message,
      title: typeof b.error === 'string' ? b.error : '',
      retryAfter,
      body,
      rule: typeof b.rule === 'string' ? b.rule : undefined,
    });
  }
  return new NightgateError({ status, code: 'UNKNOWN', message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`, retryAfter, body });
}
