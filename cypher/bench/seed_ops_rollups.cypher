// mode: write
// Bench only (bench/ops_bench.py): rollups of many answers written at once, as the writer's
// count_answers would leave them (the bench checks both give the same summary on a sample).
// :param hours => [{scope: 'bench-ops-0', hourMs: 1764871200000, status: 'answered', answers: 12}]
// :param latencies => [{scope: 'bench-ops-0', dayMs: 1764806400000, stage: 'retrieval', counts: [0, 1], sumMs: 30.5}]
// :param cited => [{scope: 'bench-ops-0', dayMs: 1764806400000, documentId: 'd_bench0001', citations: 3}]
// :param gaps => [{scope: 'bench-ops-0', dayMs: 1764806400000, key: 'warranty', status: 'partial', asked: 2, words: ['warranty'], wordings: ['How long is the warranty?'], lastAskedMs: 1764871234567, traceId: 't_bench00000000001', query: 'How long is the warranty?'}]
CALL () {
  UNWIND $hours AS row
  CREATE (h:OpsHour) SET h = row
}
CALL () {
  UNWIND $latencies AS row
  CREATE (l:OpsLatencyDay) SET l = row
}
CALL () {
  UNWIND $cited AS row
  CREATE (c:OpsCitedDay) SET c = row
}
CALL () {
  UNWIND $gaps AS row
  CREATE (q:OpsGapDay) SET q = row
}
RETURN size($hours) + size($latencies) + size($cited) + size($gaps) AS created
