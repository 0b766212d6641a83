import fc from 'fast-check';
import { PromptCache } from '../../../../bench/cost-cache';
import { cacheTtlInput } from '../../../../src/core/agent/agent';
import { buildReflectMessages, buildRespondMessages } from '../../../../src/core/cycle/chat-messages';
import { type TextBlock, contentText } from '../../../../src/core/cycle/model';
import { buildCyclePrompt, cyclePromptContent } from '../../../../src/core/cycle/prompts';
import { KNOWN_CUT_SLACK, cutsKnown, planArchive } from '../../../../src/core/scratchpad/budget';
import { renderMarkdown, renderParts } from '../../../../src/core/scratchpad/render';
import { MAX_SECTION_CHARS, type Scratchpad, defaultScratchpad } from '../../../../src/core/scratchpad/scratchpad';
import { safeApply } from '../../../../src/core/scratchpad/update';

const known = Array.from({ length: 12 }, (_, index) => `- (user) fact ${index}: the replica lags after failover`);
const base: Scratchpad = {
  ...defaultScratchpad('Help with data pipelines'),
  understanding: { known: known.join('\n'), believed: '- batches are too large', unknown: '- the SLA' },
  workspace: 'Turn 1 notes: check the lag dashboard',
  goals: ['Keep the pipeline fresh'],
  notes: '[TOOL] echo({"message":"hi"}) → ECHO: hi',
};

function apply(state: Scratchpad, update: Record<string, string>): Scratchpad {
  const outcome = safeApply(state, update);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.state;
}

/** A turn's usual change: TRAJECTORY's Now replaced, WORKSPACE appended to, SELF's attention moved. */
const laterTurn = apply(base, {
  trajectory_now: 'Comparing the two fixes',
  workspace: 'APPEND: Turn 2 notes: watermark vs idempotency key',
  self_attention: 'The fix that keeps freshness',
});

function blocksOf(content: unknown): TextBlock[] {
  if (!Array.isArray(content)) throw new Error('expected the message in blocks');
  return content as TextBlock[];
}

/** The text up to and including the last marked block: what a provider may read from its cache. */
function cachedPrefix(blocks: readonly TextBlock[]): string {
  const last = blocks.map((block) => block.cache === true).lastIndexOf(true);
  return contentText(blocks.slice(0, last + 1));
}

const understandingEnd = (state: Scratchpad) => {
  const rendered = renderMarkdown(state);
  return rendered.slice(0, rendered.indexOf('## TRAJECTORY'));
};

describe('the prompt puts what changes least first', () => {
  it('renders in parts that join to the scratchpad as the model always saw it', () => {
    const section = fc.string({ maxLength: 200 });
    fc.assert(
      fc.property(section, section, section, section, (knownText, workspace, now, notes) => {
        const state = {
          ...base,
          understanding: { ...base.understanding, known: knownText },
          trajectory: { ...base.trajectory, now },
          workspace,
          notes,
        };
        const { head, known: lines, stableTail, volatile, notes: last } = renderParts(state);
        expect(`${head}${lines.join('')}${stableTail}${volatile}${last}`).toBe(renderMarkdown(state));
      }),
    );
  });

  it('shares a byte-identical prefix through UNDERSTANDING between two renders that changed only later sections', () => {
    const stable = understandingEnd(base);
    expect(understandingEnd(laterTurn)).toBe(stable);
    expect(stable).toMatch(/^## IDENTITY[\s\S]*## UNDERSTANDING[\s\S]*### Unknown\n- the SLA\n\n---\n\n$/);

    const respond = [base, laterTurn].map((state) => blocksOf(buildRespondMessages(state, 'Hi')[0]?.content));
    const reflect = [base, laterTurn].map((state) => blocksOf(buildReflectMessages(state, 'Hi', 'Hello')[0]?.content));
    const cycle = [base, laterTurn].map((state) =>
      blocksOf(cyclePromptContent(state, buildCyclePrompt(state, { iteration: 1, maxIterations: 5 }))),
    );
    for (const [before, after] of [respond, reflect, cycle]) {
      const stableBlocks = before!.findIndex((block) => block.text.endsWith('### Unknown\n- the SLA\n\n---\n\n'));
      expect(stableBlocks).toBeGreaterThan(0);
      expect(before![stableBlocks]?.cache).toBe(true);
      // Byte for byte, block for block: the provider's cache keys on both.
      expect(after!.slice(0, stableBlocks + 1)).toEqual(before!.slice(0, stableBlocks + 1));
      expect(contentText(before!.slice(0, stableBlocks + 1))).toMatch(new RegExp(`${escape(stable)}$`));
      expect(before![stableBlocks + 1]?.text.startsWith('## TRAJECTORY')).toBe(true);
    }
  });

  it('keeps every earlier block of Known when reflect appends to it, and marks the new end', () => {
    const appended = apply(base, { understanding_known: 'APPEND: - (inferred) the merge is the bottleneck' });
    const before = blocksOf(buildRespondMessages(base, 'Hi')[0]?.content);
    const after = blocksOf(buildRespondMessages(appended, 'Hi')[0]?.content);
    const knownEnd = before.findIndex((block) => block.cache === true);

    expect(before[knownEnd]?.text).toBe(`${known.at(-1)}\n`);
    expect(after.slice(0, knownEnd)).toEqual(before.slice(0, knownEnd).map((block) => ({ text: block.text })));
    expect(after[knownEnd]).toEqual({ text: `${known.at(-1)}\n` });
    expect(after[knownEnd + 1]).toEqual({ text: '- (inferred) the merge is the bottleneck\n', cache: true });
    expect(cachedPrefix(after).startsWith(contentText(before.slice(0, knownEnd + 1)))).toBe(true);
  });

  it('orders the sections by stability, then the turn: message, directives, iteration counter', () => {
    const headings = ['## IDENTITY', '## UNDERSTANDING', '## TRAJECTORY', '## WORKSPACE', '## SELF', '## TASKS'];
    const cycle = buildCyclePrompt(base, { iteration: 2, maxIterations: 5, directives: ['Be brief'] });
    const respond = buildRespondMessages(base, 'What next?', [{ text: 'Be brief', iteration: 1 }]);
    const respondText = respond.map((message) => contentText(message.content)).join('\n');
    for (const [text, turn] of [
      [cycle, ['## NOTES', 'USER DIRECTIVE: Be brief', 'Iteration 2 of 5']],
      [respondText, ['## NOTES', 'What next?', 'USER DIRECTIVE: Be brief']],
    ] as const) {
      const positions = [...headings, ...turn].map((marker) => text.indexOf(marker));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    }
    expect(contentText(cyclePromptContent(base, `${cycle}\n\n## Stage`))).toBe(`${cycle}\n\n## Stage`);
  });

  it('never sends a blank block: a blank line of Known rides with the line before it', () => {
    const state = { ...base, understanding: { ...base.understanding, known: '- a\n\n   \n- b' } };
    expect(renderParts(state).known).toEqual(['- a\n\n   \n', '- b\n']);
  });
});

describe('what keeps the cached prefix alive', () => {
  it('cuts Known in chunks once the patch is in, so the turns after a cut only append to it', () => {
    const line = (index: number) => `- (user) fact ${index}: ${'x'.repeat(90)}`;
    const full = {
      ...base,
      understanding: { ...base.understanding, known: Array.from({ length: 60 }, (_, index) => line(index)).join('\n') },
    };
    expect(full.understanding.known.length).toBeGreaterThan(MAX_SECTION_CHARS);
    expect(cutsKnown(full, 100_000)).toBe(true);

    const [plain] = planArchive(full, 100_000);
    const [chunked] = planArchive(full, 100_000, true);

    expect(chunked?.section).toBe('understanding_known');
    // Room for a quarter of the cap of appends before the next cut, where a plain cut leaves room for about one.
    const room = (cut: typeof plain) => MAX_SECTION_CHARS - cut!.kept.length;
    expect(room(chunked)).toBeGreaterThanOrEqual(KNOWN_CUT_SLACK);
    expect(room(plain)).toBeLessThan(KNOWN_CUT_SLACK / 2);
    expect(chunked!.kept.endsWith(line(59))).toBe(true);
    expect(cutsKnown(base, 100_000)).toBe(false);
  });

  it('caches for the agent’s setting, else an hour for a cycle a schedule woke, else the provider default', () => {
    expect(cacheTtlInput({}, 'chat')).toEqual({});
    expect(cacheTtlInput({}, 'task')).toEqual({});
    expect(cacheTtlInput({}, 'schedule')).toEqual({ cacheTtl: '1h' });
    expect(cacheTtlInput({ cacheTtl: '5m' }, 'schedule')).toEqual({ cacheTtl: '5m' });
    expect(cacheTtlInput({ cacheTtl: '1h' }, 'chat')).toEqual({ cacheTtl: '1h' });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe("bench/cost's stand-in bills as the provider documents caching", () => {
  const big = 'x'.repeat(4 * 1100);
  const request = (blocks: { text: string; mark?: boolean }[], toolChoice: unknown = { type: 'auto' }) => ({
    model: 'm',
    tool_choice: toolChoice,
    system: [{ type: 'text', text: 'system', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: blocks.map(({ text, mark }) => ({
          type: 'text',
          text,
          ...(mark && { cache_control: { type: 'ephemeral' } }),
        })),
      },
    ],
  });

  it('writes at a breakpoint at 1.25×, reads it back at 0.1× while it lives, and nothing under 1,024 tokens', () => {
    const cache = new PromptCache();
    const first = cache.account(request([{ text: big, mark: true }, { text: 'turn 1' }]), 0);
    const second = cache.account(request([{ text: big, mark: true }, { text: 'turn 2' }]), 200);
    const expired = cache.account(request([{ text: big, mark: true }, { text: 'turn 3' }]), 200 + 301);

    expect(first).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 1101.5, inputTokens: 1.5 });
    expect(second).toMatchObject({ cacheReadTokens: 1101.5, cacheWriteTokens: 0 });
    expect(second.weightedTokens).toBeCloseTo(110.15 + 1.5);
    expect(expired.cacheReadTokens).toBe(0);
    expect(new PromptCache().account(request([{ text: 'short', mark: true }]), 0).cacheWriteTokens).toBe(0);
  });

  it('finds an earlier entry up to 20 blocks before a breakpoint, and misses it once tool_choice changes', () => {
    const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ text: `line ${index}\n` }));
    const cache = new PromptCache();
    cache.account(request([{ text: big }, ...lines(3), { text: 'end\n', mark: true }]), 0);
    const appended = request([{ text: big }, ...lines(3), { text: 'end\n' }, ...lines(19), { text: 'x', mark: true }]);
    const tooFar = request([{ text: big }, ...lines(3), { text: 'end\n' }, ...lines(20), { text: 'x', mark: true }]);

    expect(new PromptCache().account(appended, 0).cacheReadTokens).toBe(0);
    expect(cache.account(tooFar, 1).cacheReadTokens).toBe(0);
    expect(cache.account(appended, 2).cacheReadTokens).toBeGreaterThan(1100);
    const otherChoice = request([{ text: big }, ...lines(3), { text: 'end\n', mark: true }], { type: 'any' });
    expect(cache.account(otherChoice, 3).cacheReadTokens).toBe(0);
  });
});
