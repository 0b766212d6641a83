// Client side: what an application that starts, talks to and reads agents needs. No worker code is loaded.
export * from './core/scratchpad/scratchpad';
export * from './core/agent/agent';
export * from './core/cycle/input';
export { renderMarkdown } from './core/scratchpad/render';
export * from './common/messages/agent';
export * from './common/messages/cycle';
export * from './common/ids';
export * from './common/search-attributes';
export type * from './common/workflow-types';
export * from './clients/agents';
export * from './clients/connection';
export * from './clients/schedules';
export * from './clients/snapshots';
