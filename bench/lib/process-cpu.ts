/**
 * CPU time of local processes, read from Linux's /proc/<pid>/stat (user and system time of the
 * process itself, in clock ticks of 1/100 s): how much of the cores each process of a benchmark
 * used while it measured. Elsewhere, or for a process gone, the reading is null.
 */
import fs from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux's common builds). */
const TICKS_PER_S = 100;

/** The CPU seconds (user + system) `pid` has used so far; null when it cannot be read. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/** The CPU seconds the whole machine has been busy so far, over all its cores (/proc/stat: all but idle and I/O wait); null elsewhere. */
export function machineBusySeconds(): number | null {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cpu;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/** CPU seconds of named processes (and of the whole machine, `machine`) over a span of time: start() now, then stop() gives each one's use and the wall seconds. */
export function cpuSpan(pids: Record<string, number | undefined>) {
  const begin = Date.now();
  const read = (): Record<string, number | null> => ({
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)])),
    machine: machineBusySeconds(),
  });
  const before = read();
  return {
    stop(): { wall_s: number; cpu_s: Record<string, number | null> } {
      const after = read();
      const cpu = Object.fromEntries(
        Object.entries(before).map(([name, start]) => {
          const end = after[name];
          return [name, start === null || end === null ? null : Math.round((end - start) * 100) / 100];
        }),
      );
      return { wall_s: (Date.now() - begin) / 1000, cpu_s: cpu };
    },
  };
}
