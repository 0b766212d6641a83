/*
 * The order jest starts test files in: the longest first, so that no long file starts late and runs on alone while
 * the other workers sit idle. Jest orders by the durations it cached from the last run; a clean clone (CI) has none,
 * and jest would fall back to file size, which says little here. So files without a cached duration take the one
 * listed below, measured in a full run on 2 cores (`npx jest --json`, testResults[].endTime - startTime); files in
 * neither come after, largest first.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds, rounded, from a full run on a busy machine; only the order matters. Files under 15 s are left out. */
const MEASURED = {
  'test/models/llama-server.test.ts': 363,
  'test/models/llama-task-loop.test.ts': 266,
  'test/workflows/agent.test.ts': 139,
  'test/cli/agents-cli.test.ts': 125,
  'test/cli/progress-cli.test.ts': 113,
  'test/cli/cli.test.ts': 93,
  'test/cli/lifecycle.test.ts': 84,
  'test/cli/staged-cli.test.ts': 77,
  'test/cli/time-travel-cli.test.ts': 69,
  'test/cli/research-cli.test.ts': 48,
  'test/cli/chat-terminal.test.ts': 46,
  'test/cli/approvals-cli.test.ts': 46,
  'test/examples/client.test.ts': 44,
  'test/workflows/research.test.ts': 43,
  'test/workflows/directive-load.test.ts': 42,
  'test/cli/tools-cli.test.ts': 39,
  'test/package/consumer-tools.test.ts': 38,
  'test/workflows/research-verified.test.ts': 34,
  'test/workflows/research-mirror.test.ts': 33,
  'test/workflows/staged.test.ts': 29,
  'test/unit/repo/kernel-imports.test.ts': 28,
  'test/workflows/schedule.test.ts': 21,
  'test/workflows/research-plan.test.ts': 20,
  'test/workflows/research-kill.test.ts': 20,
  'test/workflows/archive-durable.test.ts': 20,
  'test/workflows/research-hostile.test.ts': 19,
  'test/workflows/agent-cycle.test.ts': 19,
  'test/ui/web-ui-no-worker.test.ts': 18,
  'test/workflows/mcp-tools.test.ts': 17,
  'test/workflows/deploy-versions.test.ts': 17,
  'test/workflows/research-subagent.test.ts': 16,
  'test/ui/web-ui-research.test.ts': 16,
  'test/package/pack.test.ts': 16,
  'test/workflows/staged-visible.test.ts': 15,
  'test/ui/approvals-ui.test.ts': 15,
  'test/cli/models-cli.test.ts': 15,
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
