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
 * Seconds, rounded, on a busy machine; only the order matters. Files under 15 s are left out. From a full run, except
 * test/models (single files), test/workflows (the folder, 3 workers) and the CLI files above 20 s (one worker),
 * measured again after the dev server's SQLite went to WAL and llama-server to one thread (2026-11-27).
 */
const MEASURED = {
  'test/models/llama-server.test.ts': 175,
  'test/workflows/agent.test.ts': 73,
  'test/cli/lifecycle.test.ts': 65,
  'test/cli/progress-cli.test.ts': 56,
  'test/cli/cli.test.ts': 54,
  'test/cli/agents-cli.test.ts': 50,
  'test/cli/research-cli.test.ts': 48,
  'test/cli/chat-terminal.test.ts': 46,
  'test/models/llama-task-loop.test.ts': 45,
  'test/examples/client.test.ts': 44,
  'test/cli/tools-cli.test.ts': 39,
  'test/package/consumer-tools.test.ts': 38,
  'test/workflows/research-mirror.test.ts': 35,
  'test/workflows/research.test.ts': 34,
  'test/cli/approvals-cli.test.ts': 33,
  'test/models/llama-stream.test.ts': 31,
  'test/workflows/directive-load.test.ts': 31,
  'test/workflows/research-verified.test.ts': 31,
  'test/workflows/deploy-versions.test.ts': 30,
  'test/workflows/research-kill.test.ts': 29,
  'test/workflows/staged.test.ts': 24,
  'test/cli/staged-cli.test.ts': 23,
  'test/cli/time-travel-cli.test.ts': 23,
  'test/workflows/archive-durable.test.ts': 23,
  'test/workflows/turn-stream.test.ts': 23,
  'test/workflows/model-fallback.test.ts': 22,
  'test/ui/web-ui-no-worker.test.ts': 18,
  'test/package/pack.test.ts': 16,
  'test/ui/web-ui-research.test.ts': 16,
  'test/cli/models-cli.test.ts': 15,
  'test/ui/approvals-ui.test.ts': 15,
  'test/workflows/approvals.test.ts': 15,
  'test/workflows/schedule.test.ts': 15,
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
