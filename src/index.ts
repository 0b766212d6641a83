// Client side: what an application that starts, talks to and reads agents needs. No worker code is loaded.
export * from './core/scratchpad';
export * from './core/agent';
export * from './core/cycle';
export { renderMarkdown } from './core/render';
export * from './common/agent-messages';
export * from './common/cycle-messages';
export * from './common/ids';
export * from './common/search-attributes';
export type * from './common/workflow-types';
export * from './client/agent-client';
export * from './client/connection';
export * from './client/schedules';
export * from './client/snapshots';
