// The Azure resources opstream needs: a Cosmos DB account (key authentication off by default), its
// database, every container opstream verifies at start (from containers.json), the user-assigned
// identity the pods run as, its federation with the cluster's service account, and data-plane roles;
// with serviceBusNamespaceName, the Service Bus namespace (local auth off), its topics, one
// subscription per replica and the data roles (README "Deploying", Service Bus).
// Deploy: az deployment group create -g <rg> -f deploy/azure/main.bicep -p accountName=<name> aksOidcIssuerUrl=<url>
// Not compiled in this repository's CI (no Bicep compiler there): see README "Deploying".

@description('Cosmos DB account name (globally unique, lower case).')
param accountName string

@description('Region of the account and the identity.')
param location string = resourceGroup().location

@description('Database opstream uses (setting cosmos.database).')
param databaseName string = 'opstream'

@description('Key authentication off: only Entra ID identities with a data role get in. false only for accounts reached with a key (the key-auth overlay).')
param disableLocalAuth bool = true

@description('Autoscale ceiling of the database, in RU/s (shared by its containers).')
param maxThroughput int = 4000

@description('Zone-redundant account (regions that have availability zones).')
param zoneRedundant bool = false

@description('OIDC issuer URL of the AKS cluster (az aks show --query oidcIssuerProfile.issuerUrl).')
param aksOidcIssuerUrl string

@description('Namespace and service account of the opstream pods (deploy/kubernetes).')
param serviceAccountNamespace string = 'opstream'
param serviceAccountName string = 'opstream'

@description('Principal (object) id of KEDA\'s identity, which reads the leases and the change feed to scale on lag; empty = no role for it.')
param kedaPrincipalId string = ''

@description('Service Bus namespace for Clusters Service events, operation events and wake-up hints (globally unique); empty = no Service Bus.')
param serviceBusNamespaceName string = ''

@description('Replicas that can run (the ScaledObject\'s maxReplicaCount): each gets its own subscriptions, named after its pod (StatefulSet opstream: opstream-0, opstream-1…).')
param maxReplicas int = 4

@description('Name of the opstream StatefulSet (deploy/kubernetes): its pods are <name>-0 … <name>-(maxReplicas-1).')
param statefulSetName string = 'opstream'

@description('Principal (object) id of Clusters Service\'s identity, which publishes its events; empty = no role for it.')
param clustersServicePrincipalId string = ''

@description('Principal (object) id of the frontend\'s identity, which sends wake-up hints; empty = no role for it.')
param frontendPrincipalId string = ''

var containers = loadJsonContent('containers.json').containers
var serviceBus = !empty(serviceBusNamespaceName)
// Topic names: the defaults of serviceBus.clustersServiceTopic, serviceBus.operationEventsTopic and serviceBus.hintsEntity.
var csEventsTopicName = 'clusters-service-events'
var operationEventsTopicName = 'operation-events'
var hintsTopicName = 'operation-hints'
// Built-in Service Bus data-plane roles.
var serviceBusReceiverRoleId = '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
var serviceBusSenderRoleId = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'

// Built-in Cosmos DB data-plane role definitions (same ids in every account).
var dataReaderRoleId = '00000000-0000-0000-0000-000000000001'
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: accountName
  location: location
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: zoneRedundant
      }
    ]
    disableLocalAuth: disableLocalAuth
    // Databases and containers are made here, never by a key holder at run time.
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
    options: {
      autoscaleSettings: {
        maxThroughput: maxThroughput
      }
    }
  }
}

resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for c in containers: {
    parent: database
    name: c.id
    properties: {
      resource: union(
        {
          id: c.id
          partitionKey: {
            paths: [c.partitionKeyPath]
            kind: 'Hash'
            version: 2
          }
          indexingPolicy: c.indexingPolicy
        },
        contains(c, 'defaultTtl') ? { defaultTtl: c.defaultTtl } : {}
      )
    }
  }
]

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: '${accountName}-opstream'
  location: location
}

resource federation 'Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials@2023-01-31' = {
  parent: identity
  name: 'aks-${serviceAccountNamespace}-${serviceAccountName}'
  properties: {
    issuer: aksOidcIssuerUrl
    subject: 'system:serviceaccount:${serviceAccountNamespace}:${serviceAccountName}'
    audiences: ['api://AzureADTokenExchange']
  }
}

// opstream reads and writes documents, queries, reads the change feed: Data Contributor. Account scope: the SDK
// also reads account metadata; the account holds nothing but opstream's database.
resource workloadRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: account
  name: guid(account.id, identity.id, dataContributorRoleId)
  properties: {
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'
    principalId: identity.properties.principalId
    scope: account.id
  }
}

// KEDA's Cosmos DB scaler reads leases and the change feed: Data Reader is enough.
resource kedaRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (!empty(kedaPrincipalId)) {
  parent: account
  name: guid(account.id, kedaPrincipalId, dataReaderRoleId)
  properties: {
    roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataReaderRoleId}'
    principalId: kedaPrincipalId
    scope: account.id
  }
}

// Service Bus: a Clusters Service event or a hint is of use only to the replica that owns the
// operation's feed range, and only that replica knows it owns it: every replica reads a subscription
// of its own (serviceBus.*Subscription={hostname}, the pod's stable name). Messages live 5 minutes:
// an event nobody read by then is one the status follow has caught up with.
resource serviceBusNamespace 'Microsoft.ServiceBus/namespaces@2022-10-01-preview' = if (serviceBus) {
  name: serviceBus ? serviceBusNamespaceName : 'unused'
  location: location
  sku: {
    name: 'Standard'
  }
  properties: {
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
  }
}

resource csEventsTopic 'Microsoft.ServiceBus/namespaces/topics@2022-10-01-preview' = if (serviceBus) {
  parent: serviceBusNamespace
  name: csEventsTopicName
  properties: {
    defaultMessageTimeToLive: 'PT5M'
  }
}

resource csEventsSubscriptions 'Microsoft.ServiceBus/namespaces/topics/subscriptions@2022-10-01-preview' = [
  for i in range(0, maxReplicas): if (serviceBus) {
    parent: csEventsTopic
    name: '${statefulSetName}-${i}'
    properties: {
      defaultMessageTimeToLive: 'PT5M'
      deadLetteringOnMessageExpiration: false
      maxDeliveryCount: 10
    }
  }
]

resource hintsTopic 'Microsoft.ServiceBus/namespaces/topics@2022-10-01-preview' = if (serviceBus) {
  parent: serviceBusNamespace
  name: hintsTopicName
  properties: {
    defaultMessageTimeToLive: 'PT5M'
  }
}

resource hintsSubscriptions 'Microsoft.ServiceBus/namespaces/topics/subscriptions@2022-10-01-preview' = [
  for i in range(0, maxReplicas): if (serviceBus) {
    parent: hintsTopic
    name: '${statefulSetName}-${i}'
    properties: {
      defaultMessageTimeToLive: 'PT5M'
      deadLetteringOnMessageExpiration: false
      maxDeliveryCount: 10
    }
  }
]

// Every transition is published with a messageId derived from it: duplicate detection drops repeats.
// Subscriptions are the readers' to make (with requiresSession for per-resource order).
resource operationEventsTopic 'Microsoft.ServiceBus/namespaces/topics@2022-10-01-preview' = if (serviceBus) {
  parent: serviceBusNamespace
  name: operationEventsTopicName
  properties: {
    requiresDuplicateDetection: true
    duplicateDetectionHistoryTimeWindow: 'PT1H'
  }
}

// opstream receives from the two topics of events in and sends on the operation events topic.
resource receiveCsEvents 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (serviceBus) {
  scope: csEventsTopic
  name: guid(csEventsTopic.id, identity.id, serviceBusReceiverRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusReceiverRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource receiveHints 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (serviceBus) {
  scope: hintsTopic
  name: guid(hintsTopic.id, identity.id, serviceBusReceiverRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusReceiverRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource sendOperationEvents 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (serviceBus) {
  scope: operationEventsTopic
  name: guid(operationEventsTopic.id, identity.id, serviceBusSenderRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusSenderRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource clustersServiceSends 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (serviceBus && !empty(clustersServicePrincipalId)) {
  scope: csEventsTopic
  name: guid(csEventsTopic.id, clustersServicePrincipalId, serviceBusSenderRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusSenderRoleId)
    principalId: clustersServicePrincipalId
  }
}

resource frontendSendsHints 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (serviceBus && !empty(frontendPrincipalId)) {
  scope: hintsTopic
  name: guid(hintsTopic.id, frontendPrincipalId, serviceBusSenderRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', serviceBusSenderRoleId)
    principalId: frontendPrincipalId
  }
}

@description('OPSTREAM_SERVICE_BUS_NAMESPACE (empty without Service Bus).')
output serviceBusNamespace string = serviceBus ? '${serviceBusNamespaceName}.servicebus.windows.net' : ''

@description('OPSTREAM_COSMOS_ENDPOINT (the configured endpoint, not a regional one).')
output cosmosEndpoint string = account.properties.documentEndpoint

@description('azure.workload.identity/client-id of the opstream service account.')
output workloadClientId string = identity.properties.clientId

output containerIds array = [for (c, i) in containers: sqlContainers[i].name]
