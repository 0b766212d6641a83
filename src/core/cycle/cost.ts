import type { Usage } from './model';

/** US dollars per million tokens: input, output, cache write, cache read. */
interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const family = (input: number, output: number): Price => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input * 0.1,
});

// List prices by model family; a model not matched has no price and is reported as such.
const PRICES: [RegExp, Price][] = [
  [/claude-3-haiku/, family(0.25, 1.25)],
  [/claude-3-5-haiku/, family(0.8, 4)],
  [/claude-.*haiku/, family(1, 5)],
  [/claude-.*sonnet/, family(3, 15)],
  [/claude-opus-4-[01]/, family(15, 75)],
  [/claude-.*opus/, family(5, 25)],
];

/** Price of one model's usage in US dollars, or undefined when the model has no known price. */
export function usageCost(model: string, usage: Usage): number | undefined {
  if (model.startsWith('scripted:') || model.startsWith('openai:')) return 0;
  const price = PRICES.find(([pattern]) => pattern.test(model))?.[1];
  if (!price) return undefined;
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheWriteTokens * price.cacheWrite +
      usage.cacheReadTokens * price.cacheRead) /
    1_000_000
  );
}

/** Price in US dollars of usage split by model, or null when any of those models has no known price. */
export function totalCost(byModel: Readonly<Record<string, Usage>>): number | null {
  let sum = 0;
  for (const [model, usage] of Object.entries(byModel)) {
    const cost = usageCost(model, usage);
    if (cost === undefined) return null;
    sum += cost;
  }
  return sum;
}
