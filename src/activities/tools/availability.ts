import { ACTIVITY_TOOLS, type ActivityToolName } from '../../core/tools/catalogue';
import type { ToolDescriptor, ToolPolicy } from '../../core/tools/descriptor';
import { errorMessage } from '../../common/error-message';
import { TOOL_DESCRIPTIONS_BY_NAME, toolInputSchema } from '../model/tool-definitions';
import { confinementUnavailable } from './confined';
import type { ToolOptions } from './types';

/** Built-in tools a cycle selects by name; `scratchpad_read` joins on its own once there is something to read. */
const BUILTIN_DEFAULT_POLICY: ToolPolicy = { retry: true, offload: true, approval: 'auto' };

/** Why `shell`'s sandbox cannot start on this worker, with how to enable it; undefined when it can. */
export type SandboxCheck = () => Promise<string | undefined>;

/** Longest the sandbox check may take (a trial run of bubblewrap): every cycle's listing waits for it. */
export const SANDBOX_CHECK_TIMEOUT_MS = 15_000;

/**
 * {@link confinementUnavailable}, asked once: the answer holds for the worker's life (bubblewrap is installed or it
 * is not), and every cycle lists the catalogue. A check that throws or does not finish in time is a reason too.
 */
export function sandboxCheckOnce(
  check: SandboxCheck = confinementUnavailable,
  timeoutMs = SANDBOX_CHECK_TIMEOUT_MS,
): SandboxCheck {
  let answer: Promise<string | undefined> | undefined;
  return () => {
    answer ??= withinTime(check, timeoutMs);
    return answer;
  };
}

async function withinTime(check: SandboxCheck, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the sandbox check did not finish within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([check(), late]);
  } catch (error) {
    return `the sandbox check failed: ${errorMessage(error)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The built-in tools a worker with these options lists, in catalogue order, and a line for each it leaves out
 * because it cannot run there; without options (a registry asked outside a worker), all of them.
 */
export async function builtinTools(
  options: ToolOptions | undefined,
  sandbox: SandboxCheck,
): Promise<{ tools: ToolDescriptor[]; failures: string[]; unavailable: Record<string, string> }> {
  const unavailable = options ? await unavailableBuiltins(options, sandbox) : new Map<ActivityToolName, string>();
  const tools = ACTIVITY_TOOLS.filter((name) => !unavailable.has(name)).map((name) => ({
    name,
    source: 'builtin' as const,
    description: TOOL_DESCRIPTIONS_BY_NAME[name],
    inputSchema: toolInputSchema(name),
    policy: BUILTIN_DEFAULT_POLICY,
  }));
  return { tools, failures: [...unavailable.values()], unavailable: Object.fromEntries(unavailable) };
}

/**
 * The built-in tools that cannot run on this worker, each with a line saying why and what to set: a model offered
 * a tool whose every call fails only wastes its turns. `shell` needs programs on its allow-list and a sandbox that
 * starts (or the operator's SCRATCHPAD_SHELL_UNCONFINED); `web_fetch` a host it may reach; `web_search` an endpoint.
 */
export async function unavailableBuiltins(
  options: ToolOptions,
  sandbox: SandboxCheck,
): Promise<Map<ActivityToolName, string>> {
  const unavailable = new Map<ActivityToolName, string>();
  const shell = await shellUnavailable(options, sandbox);
  if (shell !== undefined) unavailable.set('shell', `shell not offered: ${shell}`);
  if (options.fetchAllowHosts.length === 0) {
    unavailable.set(
      'web_fetch',
      'web_fetch not offered: no hosts allowed (set SCRATCHPAD_FETCH_ALLOW, e.g. example.com,*.example.org, or * ' +
        'for any public host)',
    );
  }
  if (!options.searchUrl) {
    unavailable.set(
      'web_search',
      'web_search not offered: no search endpoint configured (set SCRATCHPAD_SEARCH_URL to a SearXNG-compatible ' +
        'JSON endpoint, e.g. http://localhost:8888/search)',
    );
  }
  return unavailable;
}

async function shellUnavailable(options: ToolOptions, sandbox: SandboxCheck): Promise<string | undefined> {
  // The allow-list first: a worker that allows no program never needs to probe bubblewrap.
  if (options.shellAllow.length === 0) {
    return 'no programs allowed, so every command would be refused (set SCRATCHPAD_SHELL_ALLOW, e.g. ls,cat,grep)';
  }
  if (options.shellUnconfined) return undefined;
  const why = await sandbox();
  if (why === undefined) return undefined;
  return (
    `it runs only inside a bubblewrap sandbox, and ${why}. An operator who accepts a weaker guard (arguments ` +
    'checked, no OS sandbox) may set SCRATCHPAD_SHELL_UNCONFINED=true instead'
  );
}
