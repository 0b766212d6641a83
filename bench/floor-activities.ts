/** The floor's stand-ins for `callModel` and `runTool`: no input, no work, no result. */
export const floorActivities = {
  async modelStandIn(): Promise<void> {},
  async toolStandIn(): Promise<void> {},
};

export type FloorActivities = typeof floorActivities;
