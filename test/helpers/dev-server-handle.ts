import type { DevServer } from '../../src/dev-server/dev-server';
import type { ServerWatch } from './server-watch';

/** What global-setup leaves for global-teardown; both run in Jest's main process. */
export interface TestServerHandle {
  /** None when the run uses a server given by TEMPORAL_TEST_ADDRESS. */
  server?: DevServer;
  watch?: ServerWatch;
  directory: string;
}

declare global {
  var scratchpadTestServer: TestServerHandle | undefined;
}
