/** `npm run provision`: builds or installs what the stack needs, without starting anything. */
import { provisionAll } from './provision';

provisionAll().catch((err) => {
  console.error(`[provision] ${err.message}`);
  process.exit(1);
});
