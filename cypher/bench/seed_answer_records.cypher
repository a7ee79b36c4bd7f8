// mode: write
// Bench only (bench/ops_bench.py): answer records of a bench scope, their fields without the
// response, so that the database holds as many records as the bench says.
// :param records => [{id: 't_bench0000000000', scope: 'bench-ops-0', status: 'answered', createdAtMs: 1764871234567, createdAt: '2026-12-04T18:00:34.567Z', query: 'what is basalt?', keyName: 'bench', client: 'rest'}]
UNWIND $records AS record
CREATE (r:AnswerRecord)
SET r = record
RETURN count(r) AS created
