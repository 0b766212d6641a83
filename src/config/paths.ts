/** The workflow code's entry point, for bundling by a worker and for replay by the client. */
export const WORKFLOWS_PATH = require.resolve('../workflows');
