// A workflow of your own; the plugin bundles the agent workflows next to it.
import { proxyActivities } from '@temporalio/workflow';

const { makeGreeting } = proxyActivities<{ makeGreeting(name: string): Promise<string> }>({
  startToCloseTimeout: '10s',
});

export async function greeting(name: string): Promise<string> {
  return makeGreeting(name);
}
