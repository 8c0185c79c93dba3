import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of one process, in µs, from /proc/<pid>/stat (0 once it is gone). */
function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds one process has used so far (user + system; 0 once it is gone). */
export function cpuSeconds(pid) {
  return cpuMicros(pid) / 1e6;
}

/** The pid and every descendant of it (the all-in-one's embedded PostgreSQL, say). */
function withDescendants(pid) {
  const parentOf = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const family = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (family.has(parent) && !family.has(child)) {
        family.add(child);
        grew = true;
      }
    }
  }
  return [...family];
}

/** CPU µs of each named process (with its descendants) at this moment. */
export function cpuSnapshot(processes) {
  return Object.fromEntries(
    Object.entries(processes).map(([name, pid]) => [
      name,
      withDescendants(pid).reduce((sum, member) => sum + cpuMicros(member), 0),
    ]),
  );
}

/** µs of CPU per operation for each process between two snapshots, and their sum. */
export function cpuPerOperation(before, after, operations) {
  const perProcess = {};
  let total = 0;
  for (const name of Object.keys(before)) {
    const spent = after[name] - before[name];
    perProcess[name] = Math.round(spent / Math.max(1, operations));
    total += spent;
  }
  return { perProcess, total: Math.round(total / Math.max(1, operations)) };
}

/** The machine's 1-minute load average (other engineers' work shows here). */
export function loadAverage() {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
