'use strict';
// lost-loadgens.js — at the end of a round, the loadgens that died in it. A loadgen_runs row
// still `running` whose instance has no busy connection (its application_name
// `cfscale-loadgen:<index>:busy`, loadgen/lib/results-db.js) belongs to an instance that was
// killed, or that exited with samples it could not store. Its sent/ok/errors already count
// what reached `requests` (the loadgen adds every batch's counts as it loads it), so the row
// is marked `lost` with the samples beyond that:
//   * the instance's `cfscale-loadgen-lost` line (`cf logs loadgen --recent`,
//     scripts/parsers/loadgen-log-parser.js): recorded − sent, else its `lost`;
//   * otherwise the requests the router or the app saw from it that are not in `requests`:
//     correlation ids are UUIDv7 carrying the loadgen index (loadgen/lib/uuidv7.js).
// Also a module only: markLostLoadgens(client, round, { loadgenLog }) → [{index, lost, how}].
const { lostReports } = require('../parsers/loadgen-log-parser');

const DEAD_SQL = `
  SELECT l.instance_index, l.sent FROM loadgen_runs l
   WHERE l.round_id = $1 AND l.status = 'running'
     AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                      WHERE a.datname = current_database()
                        AND a.application_name = 'cfscale-loadgen:' || l.instance_index || ':busy')
   ORDER BY l.instance_index`;

// Ids a loadgen of the round sent (version 7, made after the round was created), seen by the
// router or an app and not stored, per loadgen index (the first 14 bits of rand_b).
const SEEN_BEYOND_SQL = `
  WITH r AS (SELECT id, created_at FROM rounds WHERE id = $1),
  seen AS (
    SELECT correlation_id FROM router_timings WHERE round_id = $1
    UNION
    SELECT correlation_id FROM server_timings WHERE round_id = $1
  ),
  v7 AS (
    SELECT s.correlation_id::uuid AS id FROM seen s, r
     WHERE s.correlation_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
       AND ('x' || substr(replace(s.correlation_id, '-', ''), 1, 12))::bit(48)::bigint
           >= extract(epoch FROM r.created_at) * 1000
  )
  SELECT (get_byte(uuid_send(v.id), 8) & 63) * 256 + get_byte(uuid_send(v.id), 9) AS loadgen_index, count(*)::bigint AS n
    FROM v7 v
   WHERE NOT EXISTS (SELECT 1 FROM requests q WHERE q.correlation_id = v.id)
   GROUP BY 1`;

/**
 * Marks the round's dead loadgens `lost`. loadgenLog: async () → text of `cf logs loadgen
 * --recent`, read only when some loadgen died. Returns what it marked, [{index, lost, how}].
 */
async function markLostLoadgens(client, round, { loadgenLog = async () => '' } = {}) {
  const dead = (await client.query(DEAD_SQL, [round])).rows;
  if (dead.length === 0) return [];
  const { reports } = lostReports(await loadgenLog(), round);
  const reported = new Map(reports.map((r) => [r.loadgen_index, r]));
  const seen = new Map((await client.query(SEEN_BEYOND_SQL, [round])).rows.map((s) => [s.loadgen_index, Number(s.n)]));
  const marked = [];
  for (const d of dead) {
    const sent = Number(d.sent);
    const rep = reported.get(d.instance_index);
    let lost;
    let how;
    if (rep !== undefined) {
      lost = rep.recorded !== undefined ? Math.max(0, rep.recorded - sent) : rep.lost;
      how = rep.recorded !== undefined ? `its cfscale-loadgen-lost line: ${rep.recorded} recorded, ${sent} stored`
        : `its cfscale-loadgen-lost line: ${rep.lost} not stored`;
    } else {
      lost = seen.get(d.instance_index) ?? 0;
      how = `requests the router or the app saw from it beyond the ${sent} stored`;
    }
    await client.query(`UPDATE loadgen_runs SET status = 'lost', lost = $3, finished_at = now(), detail = $4
      WHERE round_id = $1 AND instance_index = $2 AND status = 'running'`,
    [round, d.instance_index, lost, `died in the round, ${lost} samples lost (${how})`]);
    marked.push({ index: d.instance_index, lost, how });
  }
  return marked;
}

module.exports = { markLostLoadgens };
