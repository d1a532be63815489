/** `npm run provision`: builds or installs what the stack needs, without starting anything. */
import { provisionAll } from './provision';
import { provisionObservability } from './provision-observability';

Promise.all([provisionAll(), provisionObservability()]).catch((err) => {
  console.error(`[provision] ${err.message}`);
  process.exit(1);
});
