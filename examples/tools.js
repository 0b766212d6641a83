// Tools of your own for the agents: `scratchpad worker --tools examples/tools.js` (or SCRATCHPAD_TOOLS), or
// `new ScratchpadPlugin({ toolLimits, tools: require('./tools') })` in a worker of your own.
const fs = require('node:fs/promises');
const path = require('node:path');
const { z } = require('zod');
const { defineTool } = require('durable-scratchpad/worker');

const ORDERS = { A17: { status: 'shipped', carrier: 'DHL' }, A18: { status: 'packing' } };

module.exports = [
  // A zod input: the model gets its JSON Schema; `run` gets the parsed arguments (defaults applied).
  defineTool({
    name: 'lookup_order',
    description: 'Look up an order by its id (A followed by digits). Returns its status.',
    input: z.object({
      id: z
        .string()
        .regex(/^A\d+$/)
        .describe('order id, e.g. A17'),
    }),
    timeoutMs: 10_000,
    run: async ({ id }) => ORDERS[id] ?? { error: `no order ${id}` },
  }),
  // A JSON Schema input, and a call that must never run twice: after a worker dies mid-call the model is told the
  // outcome is unknown, instead of Temporal retrying it. The idempotency key is the same for every attempt of one
  // call, so a note written under it already is not written again.
  defineTool({
    name: 'send_note',
    description: 'Append a note for the support team to notes.txt in the sandbox.',
    input: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 2000 } },
      required: ['text'],
      additionalProperties: false,
    },
    retry: false,
    run: async ({ text }, { sandboxRoot, agentId, idempotencyKey }) => {
      const file = path.join(sandboxRoot, 'notes.txt');
      const written = await fs.readFile(file, 'utf8').catch(() => '');
      if (written.includes(`[${idempotencyKey}]`)) return 'noted already';
      await fs.appendFile(file, `${agentId ?? '-'}: ${text} [${idempotencyKey}]\n`);
      return 'noted';
    },
  }),
];
