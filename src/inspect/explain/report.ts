/**
 * Everything `opstream explain` found about one operation, as `--json` prints it: the documents in
 * Cosmos DB as curated views (a notification URI shows its origin only), the lock, the dead
 * letters, the lease of the range, what the owning instance says, and what Clusters Service says.
 * The types come from schemas/explain-report.schema.json, which the report is validated against
 * before it is printed.
 */
export type {
  ClustersServiceView,
  DeadLetterView,
  ExplainReport,
  LeaseView,
  LockView,
  NotificationView,
  OperationView,
  OwnerView,
  ResourceView,
} from '../../domain/types.generated';
