// The Azure resources opstream needs: a Cosmos DB account (key authentication off by default), its
// database, every container opstream verifies at start (from containers.json), the user-assigned
// identity the pods run as, its federation with the cluster's service account, and data-plane roles.
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

var containers = loadJsonContent('containers.json').containers

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

@description('OPSTREAM_COSMOS_ENDPOINT (the configured endpoint, not a regional one).')
output cosmosEndpoint string = account.properties.documentEndpoint

@description('azure.workload.identity/client-id of the opstream service account.')
output workloadClientId string = identity.properties.clientId

output containerIds array = [for (c, i) in containers: sqlContainers[i].name]
