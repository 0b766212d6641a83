import { RoutedScriptedProvider } from '../../activities/model/routed';
import { ResearchRuns } from '../../clients/research-runs';
import type { ResearchInput } from '../../core/research/run';
import type { Config } from '../../config';
import { ensureDevServer } from '../../dev-server/local-server';
import { errorMessage } from '../../common/error-message';
import { CliError } from '../errors';
import { startAndFollow } from '../research-runs';
import * as runtime from '../runtime';
import { fixturePages, serveFixtureWeb } from './fixture-web';
import { DEMO_COMPANIES, DEMO_PLAN, DEMO_QUERY, demoRoutes, planRoute } from './research-scripts';
import { defineCommand } from '../command';

/** `research demo`: offline; a scripted supervisor plans, scripted workers research a fixture web on loopback. */
async function researchDemoCommand(): Promise<number> {
  const config = runtime.config();
  const log = (line: string) => process.stderr.write(`[research demo] ${line}\n`);
  const web = await serveFixtureWeb(fixturePages(DEMO_COMPANIES));
  try {
    await ensureDevServer(config, { log }).catch((error: unknown) => {
      throw new CliError(errorMessage(error));
    });
    const client = await runtime.client(config);
    const spec = 'scripted:research-demo';
    const demoConfig: Config = {
      ...config,
      // A queue of its own (derived from the configured one): its scripted models must not meet other workers.
      SCRATCHPAD_TASK_QUEUE: `${config.SCRATCHPAD_TASK_QUEUE}-research-demo`,
      SCRATCHPAD_SEARCH_URL: web.searchUrl,
      // The fixture web is on loopback, so the demo allows exactly that host.
      SCRATCHPAD_FETCH_ALLOW: web.allowance.fetchAllowHosts,
      SCRATCHPAD_FETCH_ALLOW_PRIVATE: web.allowance.fetchAllowAddresses,
      SCRATCHPAD_FETCH_PORTS: web.allowance.fetchAllowPorts,
    };
    const question = 'Revenue and employees of Acme and Globex';
    const routes = { ...demoRoutes(web.base), ...DEMO_QUERY, [planRoute(question)]: DEMO_PLAN };
    const providers = { [spec]: new RoutedScriptedProvider(routes, 'research-demo') };
    const logFile = runtime.workerLogFile(config);
    const worker = await runtime.startWorker({ config: demoConfig, modelSpec: spec, providers }, { logFile });
    log(
      `fixture web at ${web.base}; scripted workers in this process on task queue ` +
        `"${demoConfig.SCRATCHPAD_TASK_QUEUE}", logs in ${logFile}`,
    );
    const input: ResearchInput = {
      runId: `demo-${Date.now().toString(36)}`,
      question,
      // No lists: the scripted supervisor plans entities and fields from the question.
      model: spec,
      workerModel: spec,
    };
    const code = await worker.runUntil(startAndFollow(new ResearchRuns(client), demoConfig, input));
    log(`requests to the fixture web: ${web.requests.join(' ')}`);
    return code;
  } finally {
    await web.close();
  }
}

export default defineCommand((command) => command, researchDemoCommand);
