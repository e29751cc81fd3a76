import { badRequest } from './errors';

/** A change-feed continuation (`If-None-Match: "<lsn>"`, weak or quoted) as the LSN it names. */
export function parseLsnEtag(value: string): number {
  const text = value
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
  const lsn = Number(text);
  if (text === '' || !Number.isInteger(lsn) || lsn < 0)
    throw badRequest(`The change feed continuation (If-None-Match) ${value} is not a valid LSN.`);
  return lsn;
}
