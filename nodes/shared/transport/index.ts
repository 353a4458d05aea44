export * from './credentials';
export * from './download';
export * from './errors';
export * from './pagination';
export * from './query';
export * from './request';
export * from './retry';
