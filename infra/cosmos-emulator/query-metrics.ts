/**
 * `x-ms-documentdb-query-metrics`, sent when a query asks with `x-ms-documentdb-populatequerymetrics:
 * true`: the service's `name=value;…` format, which the SDK parses into `QueryMetrics`. Counts and sizes
 * are real; of the times only the total and the VM execution time are measured (the rest are 0, as the
 * emulator has no separate compile, plan or index phases).
 */
export interface QueryMetricsInput {
  retrievedDocumentCount: number;
  retrievedDocumentSize: number;
  outputDocumentCount: number;
  outputDocumentSize: number;
  elapsedMs: number;
}

export function wantsQueryMetrics(headers: Record<string, string>): boolean {
  return (headers['x-ms-documentdb-populatequerymetrics'] ?? '').toLowerCase() === 'true';
}

export function queryMetricsHeader(m: QueryMetricsInput): string {
  const ms = (n: number): string => n.toFixed(2);
  return [
    `totalExecutionTimeInMs=${ms(m.elapsedMs)}`,
    'queryCompileTimeInMs=0.00',
    'queryLogicalPlanBuildTimeInMs=0.00',
    'queryPhysicalPlanBuildTimeInMs=0.00',
    'queryOptimizationTimeInMs=0.00',
    `VMExecutionTimeInMs=${ms(m.elapsedMs)}`,
    'indexLookupTimeInMs=0.00',
    'documentLoadTimeInMs=0.00',
    'systemFunctionExecuteTimeInMs=0.00',
    'userFunctionExecuteTimeInMs=0.00',
    `retrievedDocumentCount=${m.retrievedDocumentCount}`,
    `retrievedDocumentSize=${m.retrievedDocumentSize}`,
    `outputDocumentCount=${m.outputDocumentCount}`,
    `outputDocumentSize=${m.outputDocumentSize}`,
    'writeOutputTimeInMs=0.00',
    'indexUtilizationRatio=0.00',
  ].join(';');
}
