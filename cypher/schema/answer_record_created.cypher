// mode: schema
// Retention deletes the oldest records first; listing pages newest first.
CREATE INDEX answer_record_created IF NOT EXISTS
FOR (r:AnswerRecord) ON (r.createdAtMs)
