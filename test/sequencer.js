/*
 * The order jest starts test files in: the longest first, so that no long file starts late and runs on alone while
 * the other workers sit idle. Jest orders by the durations it cached from the last run; a clean clone (CI) has none,
 * and jest would fall back to file size, which says little here. So files without a cached duration take the one
 * listed below, measured in a full run on 2 cores (`npx jest --json`, testResults[].endTime - startTime); files in
 * neither come after, largest first.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds, rounded, on a busy machine; only the order matters. Files under 15 s are left out. The mean of two full
 * runs from a clean clone on 2 cores (2026-11-28, with client-only CLI commands in the test's process).
 */
const MEASURED = {
  'test/models/llama-server.test.ts': 77,
  'test/cli/stream-cli.test.ts': 50,
  'test/package/consumer-tools.test.ts': 39,
  'test/cli/lifecycle.test.ts': 38,
  'test/cli/cli.test.ts': 36,
  'test/workflows/research-mirror.test.ts': 31,
  'test/models/llama-task-loop.test.ts': 31,
  'test/cli/tools-cli.test.ts': 27,
  'test/workflows/directive-load.test.ts': 26,
  'test/workflows/agent.test.ts': 25,
  'test/models/llama-stream.test.ts': 24,
  'test/workflows/research-verified.test.ts': 24,
  'test/workflows/turn-stream.test.ts': 23,
  'test/workflows/research.test.ts': 22,
  'test/examples/embed.test.ts': 22,
  'test/cli/progress-cli.test.ts': 21,
  'test/workflows/deploy-versions.test.ts': 21,
  'test/telemetry/replay-traced.test.ts': 21,
  'test/activities/fs-sandbox.test.ts': 20,
  'test/examples/client.test.ts': 20,
  'test/workflows/research-hostile.test.ts': 18,
  'test/cli/approvals-cli.test.ts': 17,
  'test/ui/approvals-ui.test.ts': 17,
  'test/cli/chat-terminal.test.ts': 16,
  'test/ui/web-ui-research.test.ts': 16,
  'test/telemetry/cli-trace.test.ts': 15,
  'test/console/console.test.ts': 15,
  'test/workflows/mcp-tools.test.ts': 15,
  'test/cli/staged-cli.test.ts': 15,
};

class SlowFirst extends Sequencer {
  sort(tests) {
    for (const test of tests) {
      const measured = MEASURED[path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')];
      test.duration = this.time(test) ?? (measured === undefined ? undefined : measured * 1000);
    }
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return tests.sort(
      (a, b) =>
        Number(this.hasFailed(b)) - Number(this.hasFailed(a)) ||
        (b.duration ?? -1) - (a.duration ?? -1) ||
        size(b) - size(a),
    );
  }
}

module.exports = SlowFirst;
