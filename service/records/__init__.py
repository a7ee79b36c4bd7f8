"""Answer records: every answer the API gives, kept in Neo4j with its compressed trace and linked
to the paragraphs and documents it cited and used (docs/records.md)."""

from service.records.failures import FailureRecord, store_failure
from service.records.model import AnswerRecord, build_record, iso_time, record_response
from service.records.store import (
    ListedRecord,
    RecordDetail,
    RecordFilter,
    RecordPage,
    RecordStats,
    StoredRecord,
    apply_ops_retention,
    apply_retention,
    list_records,
    read_detail,
    read_record,
    record_stats,
    store_record,
)
from service.records.writer import RecordWriter

__all__ = [
    "AnswerRecord",
    "FailureRecord",
    "ListedRecord",
    "RecordDetail",
    "RecordFilter",
    "RecordPage",
    "RecordStats",
    "RecordWriter",
    "StoredRecord",
    "apply_ops_retention",
    "apply_retention",
    "build_record",
    "iso_time",
    "list_records",
    "read_detail",
    "read_record",
    "record_response",
    "record_stats",
    "store_failure",
    "store_record",
]
