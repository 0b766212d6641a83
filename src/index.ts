export * from './core/scratchpad';
