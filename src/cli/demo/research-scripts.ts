import type { ScriptEntry } from '../../activities/model/scripted';
import { planPrompt } from '../../core/research/plan';

// The scripted side of `research demo` and of the research tests: what the supervisor plans and what each worker
// does on the fixture web (fixture-web.ts), keyed by the first line of each conversation.

/** Route key of a worker conversation: the first line of its brief, in its investigation's workspace. */
export function factRoute(entity: string, field: string, attempt = 1): string {
  return `Fact: ${entity} / ${field} (attempt ${attempt})`;
}

/** A worker script that searches, fetches `path` and claims `value` from that fetch (step 2). */
export function verifyScript(base: string, entity: string, path: string, value: string, delayMs = 0): ScriptEntry[] {
  return [
    { tool: 'web_search', args: { query: `${entity} ${path.slice(1)}` }, delayMs },
    { tool: 'web_fetch', args: { url: `${base}${path}` } },
    { tool: 'board_write', args: { status: 'VERIFIED', value, source_url: `${base}${path}`, step: 2 } },
  ];
}

/** Route key of the supervisor's planning turn for `question` (the first line of its prompt). */
export function planRoute(question: string): string {
  return planPrompt({ question }).split('\n')[0] as string;
}

/** The demo supervisor's plan: the demo companies × revenue and employees. */
export const DEMO_PLAN: ScriptEntry[] = [
  {
    tool: 'plan_research',
    args: {
      goal: 'Find the revenue and employee count of Acme and Globex',
      entities: ['Acme', 'Globex'],
      fields: ['revenue', 'employees'],
    },
  },
];

/** The companies the demo web knows. */
export const DEMO_COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
};

/**
 * Scripted workers for Acme and Globex × revenue and employees: two verify at once; one meets a dead URL (FAILED_URL,
 * then a re-search that tries the tombstoned URL again and is refused); one claims a value its page lacks (recorded
 * UNVERIFIED, re-delegated).
 */
export function demoRoutes(b: string): Record<string, ScriptEntry[]> {
  return {
    [factRoute('Acme', 'revenue')]: verifyScript(b, 'Acme', '/acme', '1234567'),
    [factRoute('Acme', 'employees')]: verifyScript(b, 'Acme', '/acme', '5000'),
    [factRoute('Globex', 'revenue')]: [
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'board_write', args: { status: 'FAILED_URL', url: `${b}/dead`, reason: 'HTTP 410' } },
    ],
    [factRoute('Globex', 'revenue', 2)]: [
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'web_fetch', args: { url: `${b}/globex` } },
      { tool: 'board_write', args: { status: 'VERIFIED', value: '890,000', source_url: `${b}/globex`, step: 2 } },
    ],
    [factRoute('Globex', 'employees')]: [
      { tool: 'web_fetch', args: { url: `${b}/old` } },
      { tool: 'board_write', args: { status: 'VERIFIED', value: '1,200', source_url: `${b}/old`, step: 1 } },
    ],
    [factRoute('Globex', 'employees', 2)]: verifyScript(b, 'Globex', '/globex', '1 200'),
  };
}
