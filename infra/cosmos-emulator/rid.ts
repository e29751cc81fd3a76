import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Resource ids shaped like Cosmos': a database is 4 bytes, a container 8 (the database's 4 + 4), a
 * document 16 (the container's 8 + an 8-byte sequence), base64 with "/" written as "-". The SDK checks
 * that a container `_rid` decodes to 8 bytes before it keeps session tokens.
 */
function encode(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\//g, '-');
}

function decode(rid: string): Buffer {
  return Buffer.from(rid.replace(/-/g, '/'), 'base64');
}

export function newDatabaseRid(): string {
  return encode(randomBytes(4));
}

export function newContainerRid(databaseRid: string): string {
  return encode(Buffer.concat([decode(databaseRid).subarray(0, 4), randomBytes(4)]));
}

export function documentRid(containerRid: string, sequence: number): string {
  const seq = Buffer.alloc(8);
  seq.writeBigUInt64BE(BigInt(sequence));
  return encode(Buffer.concat([decode(containerRid).subarray(0, 8), seq]));
}

/** A quoted etag as Cosmos writes them. */
export function newEtag(): string {
  return `"${randomUUID()}"`;
}

export function accountRid(): string {
  return encode(randomBytes(6));
}
