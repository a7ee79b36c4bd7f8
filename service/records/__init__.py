"""Answer records: every answer the API gives, kept in Neo4j with its compressed trace and linked
to the paragraphs and documents it cited and used (docs/records.md)."""

from service.records.model import AnswerRecord, build_record, record_trace
from service.records.store import StoredRecord, apply_retention, read_record, store_record
from service.records.writer import RecordWriter

__all__ = [
    "AnswerRecord",
    "RecordWriter",
    "StoredRecord",
    "apply_retention",
    "build_record",
    "read_record",
    "record_trace",
    "store_record",
]
