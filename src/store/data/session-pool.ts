import type { ClickHouseClient } from '@clickhouse/client';

/** The calls the data store adapter makes on a client. */
type Call = 'query' | 'command' | 'insert' | 'exec';

/**
 * Several chDB sessions on one data directory behind one client: each call goes to the session with the fewest
 * calls in flight, so a long query on one session leaves the others free (measured: a `SELECT 1` answered in
 * 12 ms beside a 9 s query on another session, 9 s on the same one). chDB hands a result over whole, so a call
 * is in flight until its promise settles. Sessions share the directory's tables; each keeps its own settings,
 * which is why every query states the settings it relies on (see clickhouse.ts).
 */
export function pooledClient(sessions: ClickHouseClient[]): ClickHouseClient {
  const busy = sessions.map(() => 0);
  const dispatch = (call: Call) => async (params: unknown) => {
    let index = 0;
    for (let i = 1; i < sessions.length; i += 1) if (busy[i]! < busy[index]!) index = i;
    busy[index]! += 1;
    try {
      return await (sessions[index]![call] as (p: unknown) => Promise<unknown>).call(sessions[index], params);
    } finally {
      busy[index]! -= 1;
    }
  };
  return {
    query: dispatch('query'),
    command: dispatch('command'),
    insert: dispatch('insert'),
    exec: dispatch('exec'),
    ping: () => sessions[0]!.ping(),
    close: async () => {
      await Promise.all(sessions.map((session) => session.close()));
    },
  } as unknown as ClickHouseClient;
}
