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
 * runs from a clean clone on 2 cores (2026-11-28, agent.test.ts from the second alone).
 */
const MEASURED = {
  'test/models/llama-server.test.ts': 77,
  'test/cli/stream-cli.test.ts': 49,
  'test/cli/agents-cli.test.ts': 48,
  'test/cli/lifecycle.test.ts': 48,
  'test/cli/approvals-cli.test.ts': 46,
  'test/cli/cli.test.ts': 37,
  'test/package/consumer-tools.test.ts': 36,
  'test/cli/tools-cli.test.ts': 35,
  'test/workflows/directive-load.test.ts': 33,
  'test/workflows/agent.test.ts': 31,
  'test/workflows/research-mirror.test.ts': 30,
  'test/cli/progress-cli.test.ts': 29,
  'test/cli/time-travel-cli.test.ts': 27,
  'test/models/llama-task-loop.test.ts': 27,
  'test/models/llama-stream.test.ts': 24,
  'test/workflows/research-kill.test.ts': 23,
  'test/workflows/turn-stream.test.ts': 23,
  'test/cli/research-cli.test.ts': 23,
  'test/workflows/research-verified.test.ts': 20,
  'test/workflows/research.test.ts': 20,
  'test/workflows/deploy-versions.test.ts': 19,
  'test/telemetry/replay-traced.test.ts': 18,
  'test/telemetry/cli-trace.test.ts': 17,
  'test/console/console.test.ts': 16,
  'test/cli/chat-terminal.test.ts': 16,
  'test/workflows/research-hostile.test.ts': 15,
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
