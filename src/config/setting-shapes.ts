/**
 * What a setting with a `pattern` (or a `format`) in schemas/config.schema.json must look like, in
 * words: the message of a value that does not match says this, never the regular expression.
 * test/unit/config/setting-shapes.test.ts checks that every such setting has its words here.
 */
export const SETTING_SHAPES: Readonly<Record<string, string>> = Object.freeze({
  'cosmos.endpoint':
    'a URL starting with https:// (http:// only for a key-authenticated local emulator), such as https://myaccount.documents.azure.com:443/',
  'cosmos.connectionString': 'a connection string of the form AccountEndpoint=https://…;AccountKey=…;',
  'cosmos.operationsContainer': 'a container name without /, \\, # or ?, such as Operations',
  'cosmos.resourcesContainer': 'a container name without /, \\, # or ?, such as Resources',
  'cosmos.subscriptionsContainer': 'a container name without /, \\, # or ?, such as Subscriptions',
  'cosmos.locksContainer': 'a container name without /, \\, # or ?, such as Locks',
  'cosmos.deadLettersContainer': 'a container name without /, \\, # or ?, such as DeadLetters',
  'cosmos.preferredLocations': 'a comma-separated list of Azure region names, such as East US 2,West US 2',
  'leases.container': 'a container name without /, \\, # or ?, such as Leases',
  'leases.endpoint':
    'a URL starting with https:// (http:// only for a key-authenticated local emulator), such as https://myleases.documents.azure.com:443/',
  'leases.connectionString': 'a connection string of the form AccountEndpoint=https://…;AccountKey=…;',
  'clustersService.url': 'a URL starting with http:// or https://, such as http://clusters-service:8000',
  'changefeed.name': 'a name of letters, digits, dots, underscores and hyphens only',
  'changefeed.startFrom': 'beginning, now or an RFC 3339 time such as 2026-11-30T10:00:00Z',
  'serviceBus.connectionString': 'a connection string of the form Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…',
  'serviceBus.namespace': 'a host name such as myns.servicebus.windows.net (no scheme, port or path)',
  'serviceBus.endpoint': 'amqps://host:port (or sb:// or https://, host and optional port, no path), such as amqps://127.0.0.1:5671',
  'serviceBus.operationEventsLeasePrefix': 'a name of letters, digits, dots, underscores and hyphens only',
  'notifications.allowedHostSuffixes': 'a comma-separated list of host names, such as management.azure.com,management.usgovcloudapi.net',
  'ops.addr': 'host:port, such as 127.0.0.1:9464',
  'ops.metricsAddr': 'host:port, such as 0.0.0.0:9465',
  'ops.advertiseUrl': 'an http:// or https:// origin without a path, such as http://10.244.1.7:9464',
  'tracing.otlpEndpoint': 'a URL starting with http:// or https://, such as http://otel-collector:4318',
});
