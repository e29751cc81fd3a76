/** The operations domain: statuses, request kinds, resource types, ids, CS mapping, errors, types. */
export * from './cs-mapping';
export * from './errors';
export * from './ids';
export * from './provision-errors';
export * from './requests';
export * from './resource-types';
export * from './statuses';
export * from './types';
