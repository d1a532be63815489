import { Context } from '@temporalio/activity';
import type { Progress } from '../domain/progress';

/** The current activity's heartbeat as the domain's progress reporter. */
export function activityProgress(): Progress {
  const context = Context.current();
  return (details) => context.heartbeat(details);
}
