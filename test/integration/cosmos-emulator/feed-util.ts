import { ChangeFeedPullModelIterator } from '@azure/cosmos';

/** Reads an SDK change-feed iterator until it answers 304 (nothing more right now). */
export async function drain<T>(
  iterator: ChangeFeedPullModelIterator<T>,
  maxPages = 1000,
): Promise<{ items: T[]; pages: T[][]; continuation: string }> {
  const items: T[] = [];
  const pages: T[][] = [];
  for (let i = 0; i < maxPages; i++) {
    const response = await iterator.readNext();
    if (response.statusCode === 304) return { items, pages, continuation: response.continuationToken };
    pages.push(response.result);
    items.push(...response.result);
  }
  throw new Error(`the change feed did not reach 304 within ${maxPages} pages`);
}
