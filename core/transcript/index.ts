export * from './messages';
export * from './validate';
export * from './run-log';
export * from './run-transcripts';
