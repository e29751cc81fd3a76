/**
 * What kind of Cosmos request the SDK sent, in the terms the benchmarks and `/metrics` use:
 * point reads, writes, queries, change-feed reads (200 and 304 apart), partition key ranges,
 * metadata. Pure, from the request's resource type, operation type and headers.
 */
export const COSMOS_REQUEST_KINDS = [
  'point-read',
  'write',
  'query',
  'batch',
  'changefeed',
  'changefeed-304',
  'pkranges',
  'metadata',
] as const;
export type CosmosRequestKind = (typeof COSMOS_REQUEST_KINDS)[number];

export function cosmosRequestKind(
  resourceType: string | undefined,
  operationType: string | undefined,
  headers: Record<string, unknown>,
  status: number | undefined,
  options: { useIncrementalFeed?: boolean; useLatestVersionFeed?: boolean; useAllVersionsAndDeletesFeed?: boolean } = {},
): CosmosRequestKind {
  if (resourceType === 'pkranges') return 'pkranges';
  if (resourceType !== 'docs') return 'metadata';
  // The SDK adds the A-IM header after the plugins run; its feed options say it all the same.
  const changeFeed =
    options.useIncrementalFeed ||
    options.useLatestVersionFeed ||
    options.useAllVersionsAndDeletesFeed ||
    Object.keys(headers).some((k) => k.toLowerCase() === 'a-im');
  if (changeFeed) return status === 304 ? 'changefeed-304' : 'changefeed';
  switch (operationType) {
    case 'query':
    case 'sqlquery':
      return 'query';
    case 'batch':
      return 'batch';
    case 'read':
      return 'point-read';
    default:
      return 'write';
  }
}
