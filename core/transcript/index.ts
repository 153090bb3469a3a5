export * from './messages';
export * from './validate';
export * from './run-log';
