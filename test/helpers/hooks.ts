/** Root hooks: the shared harness is stopped once, after every suite ran. */
import { closeHarness } from './harness';

export const mochaHooks = {
  async afterAll() {
    await closeHarness();
  },
};
