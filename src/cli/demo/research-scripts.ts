import type { ScriptEntry } from '../../activities/model/scripted';
import { planPrompt } from '../../core/research/plan';
import { queryRoute } from '../../core/research/search-query';

// The scripted side of `research demo` and of the research tests: what the supervisor plans and what each worker
// does on the fixture web (fixture-web.ts), keyed by the first line of each conversation.

/** Route key of a worker conversation: the first line of its brief, in its investigation's workspace. */
export function factRoute(entity: string, field: string, attempt = 1): string {
  return `Fact: ${entity} / ${field} (attempt ${attempt})`;
}

/**
 * A worker script that searches, fetches `path` and claims `value` from that fetch (step 2), quoting `quote`: the
 * words of the page that state it. On a fixture page a row reads as its field, then its value ({@link rowQuote}).
 */
export function verifyScript(
  base: string,
  entity: string,
  path: string,
  value: string,
  quote: string,
  delayMs = 0,
): ScriptEntry[] {
  return [
    { tool: 'web_search', args: { query: `${entity} ${path.slice(1)}` }, delayMs },
    { tool: 'web_fetch', args: { url: `${base}${path}` } },
    { tool: 'board_write', args: { status: 'VERIFIED', value, source_url: `${base}${path}`, step: 2, quote } },
  ];
}

/** How a fixture page's table row reads once its markup is gone: the field, then the value as the page shows it. */
export function rowQuote(field: string, shown: string): string {
  return `${field} ${shown}`;
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

/** The demo supervisor's new search after Globex's revenue source is tombstoned (it adds the host exclusion). */
export const DEMO_QUERY: Record<string, ScriptEntry[]> = {
  [queryRoute('Globex', 'revenue')]: [{ text: 'Globex annual report revenue' }],
};

/** The companies the demo web knows. */
export const DEMO_COMPANIES = {
  Acme: { revenue: 'USD 1,234,567', employees: '5,000' },
  Globex: { revenue: 'USD 890,000', employees: '1,200' },
};

/**
 * Scripted workers for Acme and Globex × revenue and employees, each VERIFIED claim quoting its page: two verify at
 * once; one meets a dead URL (FAILED_URL, then a re-search under a new query that tries the tombstoned URL again and
 * is refused); one quotes a page that lacks its value (recorded UNVERIFIED, re-delegated).
 */
export function demoRoutes(b: string): Record<string, ScriptEntry[]> {
  return {
    [factRoute('Acme', 'revenue')]: verifyScript(b, 'Acme', '/acme', '1234567', rowQuote('revenue', 'USD 1,234,567')),
    [factRoute('Acme', 'employees')]: verifyScript(b, 'Acme', '/acme', '5000', rowQuote('employees', '5,000')),
    [factRoute('Globex', 'revenue')]: [
      { tool: 'web_search', args: { query: 'Globex revenue' } },
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'board_write', args: { status: 'FAILED_URL', url: `${b}/dead`, reason: 'gone' } },
    ],
    [factRoute('Globex', 'revenue', 2)]: [
      { tool: 'web_fetch', args: { url: `${b}/dead` } },
      { tool: 'web_fetch', args: { url: `${b}/globex` } },
      {
        tool: 'board_write',
        args: {
          status: 'VERIFIED',
          value: '890,000',
          source_url: `${b}/globex`,
          step: 2,
          quote: rowQuote('revenue', 'USD 890,000'),
        },
      },
    ],
    [factRoute('Globex', 'employees')]: [
      { tool: 'web_fetch', args: { url: `${b}/old` } },
      {
        tool: 'board_write',
        args: { status: 'VERIFIED', value: '1,200', source_url: `${b}/old`, step: 1, quote: 'employees 1,200' },
      },
    ],
    [factRoute('Globex', 'employees', 2)]: verifyScript(
      b,
      'Globex',
      '/globex',
      '1 200',
      rowQuote('employees', '1,200'),
    ),
  };
}
