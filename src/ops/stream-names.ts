/**
 * The named streams of the pipeline, each tappable (`opstream tap <name>`, `/streams/<name>`):
 *
 * - `changes`: every change-feed document, before validation (`{leaseToken, operationId, status}`)
 * - `operations`: every valid operation read from the feed or a relist
 * - `active`: the non-terminal ones (or terminal with a pending ARM notification) handed to the router
 * - `decisions`: what a processor concluded for an operation (`done`, `again` with delay, `failed`)
 * - `transitions`: status changes written (`status`, `previousStatus`, `error`)
 * - `notifications`: ARM notifications delivered, failed (with a reason) or given up (with a reason and detail)
 * - `dead-letters`: documents set aside, with the reason
 * - `leases`: change-feed lease events (acquired, released, lost, split)
 */
export const STREAMS = ['changes', 'operations', 'active', 'decisions', 'transitions', 'notifications', 'dead-letters', 'leases'] as const;
