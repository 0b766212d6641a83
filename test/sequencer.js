/*
 * The order jest starts test files in: the longest first, so that no long file starts late and runs on alone while
 * the other workers sit idle. Jest orders by the durations it cached from the last run; a clean clone (CI) has none,
 * and jest would fall back to file size, which says little here. So files without a cached duration take the one
 * listed below, measured in a full run on 2 cores (`npx jest --json`, testResults[].perfStats); files in neither
 * come after, largest first.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds, rounded; only the order matters. */
const MEASURED = {
  'test/models/llama-server.test.ts': 200,
  'test/models/llama-task-loop.test.ts': 120,
  'test/cli/agents-cli.test.ts': 90,
  'test/cli/lifecycle.test.ts': 90,
  'test/workflows/agent.test.ts': 70,
  'test/cli/approvals-cli.test.ts': 60,
  'test/workflows/research.test.ts': 40,
  'test/cli/tools-cli.test.ts': 35,
  'test/workflows/staged.test.ts': 35,
  'test/workflows/research-plan.test.ts': 30,
  'test/workflows/research-verified.test.ts': 30,
  'test/package/consumer-tools.test.ts': 30,
  'test/workflows/research-subagent.test.ts': 30,
  'test/workflows/model-fallback.test.ts': 25,
  'test/workflows/time-travel.test.ts': 25,
  'test/workflows/research-mirror.test.ts': 25,
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
