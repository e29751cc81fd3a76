/**
 * The schemas opstream validates, by kind. The generated `SchemaCatalog` interface
 * (src/domain/types.generated.ts) maps the same kinds to their TypeScript types. JSON files are imported
 * (not read from disk) so the build carries them along.
 */
import armNotification from '../../schemas/arm-notification.schema.json';
import common from '../../schemas/common.schema.json';
import csBreakGlassCredential from '../../schemas/cs-break-glass-credential.schema.json';
import csClusterCreate from '../../schemas/cs-cluster-create.schema.json';
import csClusterStatus from '../../schemas/cs-cluster-status.schema.json';
import csClusterUpdate from '../../schemas/cs-cluster-update.schema.json';
import csCluster from '../../schemas/cs-cluster.schema.json';
import csCommon from '../../schemas/cs-common.schema.json';
import csError from '../../schemas/cs-error.schema.json';
import csEvent from '../../schemas/cs-event.schema.json';
import csExternalAuthCreate from '../../schemas/cs-external-auth-create.schema.json';
import csExternalAuthUpdate from '../../schemas/cs-external-auth-update.schema.json';
import csExternalAuth from '../../schemas/cs-external-auth.schema.json';
import csInflightCheck from '../../schemas/cs-inflight-check.schema.json';
import csListPage from '../../schemas/cs-list-page.schema.json';
import csNodePoolCreate from '../../schemas/cs-node-pool-create.schema.json';
import csNodePoolStatus from '../../schemas/cs-node-pool-status.schema.json';
import csNodePoolUpdate from '../../schemas/cs-node-pool-update.schema.json';
import csNodePool from '../../schemas/cs-node-pool.schema.json';
import deadLetter from '../../schemas/dead-letter.schema.json';
import explainReport from '../../schemas/explain-report.schema.json';
import lock from '../../schemas/lock.schema.json';
import operation from '../../schemas/operation.schema.json';
import operationEvent from '../../schemas/operation-event.schema.json';
import operationHint from '../../schemas/operation-hint.schema.json';
import operationState from '../../schemas/operation-state.schema.json';
import resource from '../../schemas/resource.schema.json';
import subscription from '../../schemas/subscription.schema.json';

/** A schema as loaded: every file carries its `$id` (…/schemas/<file>), which `$ref`s resolve against. */
export interface SchemaDocument {
  readonly $id: string;
  readonly title: string;
  readonly [keyword: string]: unknown;
}

export const SCHEMAS = {
  operation,
  resource,
  subscription,
  lock,
  deadLetter,
  armNotification,
  csCluster,
  csClusterCreate,
  csClusterUpdate,
  csClusterStatus,
  csNodePool,
  csNodePoolCreate,
  csNodePoolUpdate,
  csNodePoolStatus,
  csInflightCheck,
  csBreakGlassCredential,
  csExternalAuth,
  csExternalAuthCreate,
  csExternalAuthUpdate,
  csListPage,
  csError,
  csEvent,
  operationEvent,
  operationHint,
  operationState,
  explainReport,
} satisfies Record<string, SchemaDocument>;

/** Definition-only schemas the kinds reference. */
export const SHARED_SCHEMAS: readonly SchemaDocument[] = [common, csCommon];

export type SchemaKind = keyof typeof SCHEMAS;

export const SCHEMA_KINDS = Object.keys(SCHEMAS) as SchemaKind[];

/** The file name of a schema in `schemas/`, from its `$id`. */
export function schemaFileName(schema: SchemaDocument): string {
  return schema.$id.slice(schema.$id.lastIndexOf('/') + 1);
}
