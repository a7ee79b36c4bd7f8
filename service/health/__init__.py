"""A scope's knowledge-base health report: what needs an editor's attention, section by section,
each read one keyset page at a time (docs/architecture.md for the layer)."""

from service.health.contradictions import Contradiction, FactSide, contradictions
from service.health.report import SECTIONS, HealthReport, Section, health_report, health_section
from service.health.sections import (
    DanglingRelation,
    DeclaringDocument,
    ExpiredDocument,
    InvalidHealthRequest,
    NearDuplicate,
    OpenGap,
    ParagraphExcerpt,
    SectionPage,
    UndescribedPoint,
    dangling_relations,
    expired_pages,
    near_duplicate_paragraphs,
    open_gaps,
    undescribed_points,
)

__all__ = [
    "SECTIONS",
    "Contradiction",
    "DanglingRelation",
    "DeclaringDocument",
    "ExpiredDocument",
    "FactSide",
    "HealthReport",
    "InvalidHealthRequest",
    "NearDuplicate",
    "OpenGap",
    "ParagraphExcerpt",
    "Section",
    "SectionPage",
    "UndescribedPoint",
    "contradictions",
    "dangling_relations",
    "expired_pages",
    "health_report",
    "health_section",
    "near_duplicate_paragraphs",
    "open_gaps",
    "undescribed_points",
]
