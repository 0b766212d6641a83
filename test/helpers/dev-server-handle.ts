import type { DevServer } from '../../src/dev-server/dev-server';

/** What global-setup leaves for global-teardown; both run in Jest's main process. */
export interface TestServerHandle {
  server: DevServer;
  directory: string;
}

declare global {
  var scratchpadTestServer: TestServerHandle | undefined;
}
