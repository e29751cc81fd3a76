export * from './tracer';
export * from './attributes';
export * from './correlation';
