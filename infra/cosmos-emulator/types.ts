/** JSON as it travels on the wire and sits in the store. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** One component of a partition key value: `{}` stands for "undefined" (the SDK's None literal). */
export type PkComponent = string | number | boolean | null | Record<string, never>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a handler answers; the server adds the common headers. */
export interface EmulatorResponse {
  status: number;
  headers: Record<string, string>;
  /** Already serialised JSON (or nothing for 204/304). */
  body?: string;
  /** Request units (request-charge.ts); the server fills in what a handler leaves out. */
  charge?: number;
}

/** A parsed request as handlers see it. Header names are lower-case. */
export interface EmulatorRequest {
  method: string;
  /** Raw path without query string, e.g. `/dbs/a/colls/b/docs`. */
  rawPath: string;
  /** Decoded path segments. */
  segments: string[];
  headers: Record<string, string>;
  body: Buffer;
  /** Milliseconds since the epoch when the request arrived. */
  receivedAt: number;
}

export function header(req: EmulatorRequest, name: string): string | undefined {
  return req.headers[name];
}
