/** Cosmos access: container bootstrap, typed repositories, errors. */
export * from './containers';
export * from './dead-letters-repository';
export * from './document-content';
export * from './document-repository';
export * from './errors';
export * from './operations-repository';
export * from './resources-repository';
export * from './subscriptions-repository';
