// The package's test kit: a scripted model that records what it was sent and fails loudly when its script runs out,
// an observation store in memory, and a Temporal server with a scripted worker to run agents against. It needs the
// worker's dependencies. The surface is recorded in api/durable-scratchpad-testing.api.md (`npm run api`).
import { requireWorkerDependencies } from './config/worker-dependencies';

requireWorkerDependencies();

export { ScriptedProvider, type ScriptEntry, type ScriptedRequest } from './activities/model/scripted';
export { MemoryObservationStore } from './activities/observations/memory-store';
export {
  type TestServer,
  type TestServerOptions,
  type TestWorkerOptions,
  startTestServer,
} from './workers/test-server';
