// The Azure resources opstream needs: a Cosmos DB account (key authentication off by default, one
// region or several), its database, every container opstream verifies at start (from
// containers.json, under the names of the *ContainerName parameters: the cosmos.*Container and
// leases.container settings), the lease container in a database or an account of its own if asked
// (leaseDatabaseName, leaseAccountName: the leases.* settings), the user-assigned
// identity the pods run as, its federation with the cluster's service account, and data-plane roles;
// with serviceBusNamespaceName, the Service Bus namespace (local auth off), its topics, one
// subscription per replica and the data roles (docs/deploying.md, Service Bus).
// Deploy: az deployment group create -g <rg> -f deploy/azure/main.bicep -p accountName=<name> aksOidcIssuerUrl=<url>
// Not compiled in this repository's CI (no Bicep compiler there): see docs/deploying.md.

@description('Cosmos DB account name (globally unique, lower case).')
param accountName string

@description('Region of the account and the identity.')
param location string = resourceGroup().location

@description('Database opstream uses (setting cosmos.database).')
param databaseName string = 'opstream'

@description('Container names (settings cosmos.operationsContainer, cosmos.resourcesContainer, cosmos.subscriptionsContainer, cosmos.locksContainer, cosmos.deadLettersContainer and leases.container).')
param operationsContainerName string = 'Operations'
param resourcesContainerName string = 'Resources'
param subscriptionsContainerName string = 'Subscriptions'
param locksContainerName string = 'Locks'
param deadLettersContainerName string = 'DeadLetters'
param leasesContainerName string = 'Leases'

@description('Database of the lease container (setting leases.database; default: databaseName).')
param leaseDatabaseName string = databaseName

@description('A Cosmos DB account of its own for the lease container (setting leases.endpoint = output leaseEndpoint); empty = the leases live in accountName.')
param leaseAccountName string = ''

@description('Regions of a multi-region account in failover order, as the account names them (e.g. [\'East US 2\', \'West US 2\']): the first takes writes; output preferredLocations is the setting cosmos.preferredLocations. Empty = one region, location.')
param regions array = []

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

@description('Key Vault (same resource group, RBAC authorization) holding the Clusters Service token that the production overlay mounts (SecretProviderClass keyvaultName); the workload identity gets Key Vault Secrets User on it. Empty = no role.')
param keyVaultName string = ''

@description('Principal (object) id of Clusters Service\'s identity, which publishes its events; empty = no role for it.')
param clustersServicePrincipalId string = ''

@description('Principal (object) id of the frontend\'s identity, which sends wake-up hints; empty = no role for it.')
param frontendPrincipalId string = ''

var containers = loadJsonContent('containers.json').containers
// Each container's name by its key in containers.json (what the settings call it).
var containerNames = {
  operations: operationsContainerName
  resources: resourcesContainerName
  subscriptions: subscriptionsContainerName
  locks: locksContainerName
  deadLetters: deadLettersContainerName
  leases: leasesContainerName
}
var mainContainers = filter(containers, c => c.key != 'leases')
var leaseContainer = first(filter(containers, c => c.key == 'leases'))
var separateLeaseAccount = !empty(leaseAccountName)
var leaseDatabaseOfItsOwn = separateLeaseAccount || leaseDatabaseName != databaseName
var oneRegion = [{ locationName: location, failoverPriority: 0, isZoneRedundant: zoneRedundant }]
var accountLocations = empty(regions) ? oneRegion : map(range(0, length(regions)), i => { locationName: regions[i], failoverPriority: i, isZoneRedundant: zoneRedundant })
var serviceBus = !empty(serviceBusNamespaceName)
// Topic names: the defaults of serviceBus.clustersServiceTopic, serviceBus.operationEventsTopic and serviceBus.hintsEntity.
var csEventsTopicName = 'clusters-service-events'
var operationEventsTopicName = 'operation-events'
var hintsTopicName = 'operation-hints'
// Built-in Service Bus data-plane roles.
var serviceBusReceiverRoleId = '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
var serviceBusSenderRoleId = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'

// Built-in Key Vault role: read secret contents.
var keyVaultSecretsUserRoleId = '4633458b-17de-408a-b874-0445c86b69e6'

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
    locations: accountLocations
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
  for c in mainContainers: {
    parent: database
    name: containerNames[c.key]
    properties: {
      resource: union(
        {
          id: containerNames[c.key]
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

// The lease account, when the leases live apart (the Functions trigger's leaseConnection): as the
// main account, in its regions, key authentication off alike.
resource leaseAccount 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = if (separateLeaseAccount) {
  name: separateLeaseAccount ? leaseAccountName : 'unused'
  location: location
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: accountLocations
    disableLocalAuth: disableLocalAuth
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
  }
}

var leaseAccountActualName = separateLeaseAccount ? leaseAccountName : accountName

// The lease database when it is not the main one (another database, or the lease account's).
resource leaseDatabase 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = if (leaseDatabaseOfItsOwn) {
  name: '${leaseAccountActualName}/${leaseDatabaseName}'
  properties: {
    resource: {
      id: leaseDatabaseName
    }
    options: {
      autoscaleSettings: {
        maxThroughput: 1000
      }
    }
  }
  dependsOn: [account, leaseAccount]
}

resource leasesContainer 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = {
  name: '${leaseAccountActualName}/${leaseDatabaseName}/${leasesContainerName}'
  properties: {
    resource: union(
      {
        id: leasesContainerName
        partitionKey: {
          paths: [leaseContainer.partitionKeyPath]
          kind: 'Hash'
          version: 2
        }
        indexingPolicy: leaseContainer.indexingPolicy
      },
      contains(leaseContainer, 'defaultTtl') ? { defaultTtl: leaseContainer.defaultTtl } : {}
    )
  }
  dependsOn: [database, leaseDatabase]
}

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

// The lease account, when apart: opstream writes the leases there, KEDA reads them.
resource leaseWorkloadRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (separateLeaseAccount) {
  parent: leaseAccount
  name: guid(leaseAccount.id, identity.id, dataContributorRoleId)
  properties: {
    roleDefinitionId: '${leaseAccount.id}/sqlRoleDefinitions/${dataContributorRoleId}'
    principalId: identity.properties.principalId
    scope: leaseAccount.id
  }
}

resource leaseKedaRole 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (separateLeaseAccount && !empty(kedaPrincipalId)) {
  parent: leaseAccount
  name: guid(leaseAccount.id, kedaPrincipalId, dataReaderRoleId)
  properties: {
    roleDefinitionId: '${leaseAccount.id}/sqlRoleDefinitions/${dataReaderRoleId}'
    principalId: kedaPrincipalId
    scope: leaseAccount.id
  }
}

// The Clusters Service token lives in Key Vault; the production overlay mounts it through the CSI
// secret store (SecretProviderClass) with the pods' identity, which reads secrets there.
resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' existing = if (!empty(keyVaultName)) {
  name: empty(keyVaultName) ? 'unused' : keyVaultName
}

resource readsTokenSecret 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(keyVaultName)) {
  scope: keyVault
  name: guid(keyVault.id, identity.id, keyVaultSecretsUserRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUserRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
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

output containerIds array = concat([for (c, i) in mainContainers: sqlContainers[i].name], [leasesContainerName])

@description('OPSTREAM_COSMOS_PREFERRED_LOCATIONS (empty for one region).')
output preferredLocations string = join(regions, ',')

@description('OPSTREAM_LEASES_ENDPOINT when the leases live in an account of their own (else empty: they use cosmosEndpoint).')
output leaseEndpoint string = separateLeaseAccount ? leaseAccount.properties.documentEndpoint : ''

@description('OPSTREAM_LEASES_DATABASE (the lease container\'s database).')
output leaseDatabase string = leaseDatabaseName
