import { timingSafeEqual } from 'node:crypto';

/**
 * Secret checks of the stand-ins. A secret compared with `===` answers sooner the earlier it
 * differs, which lets a caller find it a character at a time; `timingSafeEqual` takes as long
 * wherever the difference is (only the length shows).
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether an `Authorization` header is `Bearer <secret>`. */
export function hasBearer(header: string | undefined, secret: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec((header ?? '').trim());
  return m !== null && sameSecret(m[1] as string, secret);
}
