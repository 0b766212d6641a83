const { loadConfig } = require('/work/main/dist/src/config');
const { createWorker } = require('/work/main/dist/src/workers/create-worker');
const { Agents } = require('/work/main/dist/src/clients/agents');
const { Client, Connection } = require('@temporalio/client');
const { NativeConnection } = require('@temporalio/worker');
(async () => {
  const config = loadConfig({ SCRATCHPAD_HOME: '/tmp/dbg-home', SCRATCHPAD_TASK_QUEUE: 'dbg', TEMPORAL_ADDRESS: 'localhost:7299' });
  const connection = await NativeConnection.connect({ address: 'localhost:7299' });
  const worker = await createWorker({ config, modelSpec: 'openai:smollm2@http://127.0.0.1:8081/v1', connection });
  const conn = await Connection.connect({ address: 'localhost:7299' }); await require('/work/main/dist/src/clients/register-search-attributes').registerSearchAttributes(conn, 'default');
  const client = new Client({ connection: conn });
  const agents = new Agents(client);
  const target = { agentId: 'dbg-' + Date.now(), taskQueue: 'dbg', purpose: 'Remember', settings: { maxOutputTokens: { respond: 48, reflect: 200, task: 160 } } };
  await worker.runUntil(async () => {
    const t0 = Date.now();
    const answer = await agents.send(target, { message: 'My name is Ada and I live in Lisbon.' });
    console.log('reply', Date.now() - t0, JSON.stringify(answer));
    const r = await client.workflow.getHandle(answer.cycleId).result();
    console.log('cycle', Date.now() - t0, JSON.stringify({ mu: r.memoryUnchanged, notes: r.after.notes, known: r.after.understanding, user: r.after.identity, usage: r.usage }));
  });
})().catch((e) => { console.error(e); process.exit(1); });
