"""Full-text reviews: whole documents bound, a list of questions answered against exactly them.

The answer path starts from retrieval; a review starts from documents the caller names. Stages,
pure over frozen Structs except at the edges (docs/reviews.md):

- request.py: the request's limits (questions, documents), checked before any read;
- binding.py: the documents' head versions read in one statement (the only I/O besides the
  provider call), checked to one readable scope, counted in UTF-16 code units and refused,
  never cut, over the limit;
- resolver.py: the observed-id resolver every finding passes through;
- screening.py: verified quotes that are still refused (injected instructions and their demands);
- deterministic.py: each question judged from the bound sentences by the sufficiency review;
- llm.py: one bounded, strictly validated call to the configured provider, failing closed;
- run.py: which reviewer runs, and the overall status; report.py: response, trace and record.
"""

from service.review.binding import (
    ReviewDocumentNotFound,
    ReviewDocumentUnavailable,
    ReviewScopeConflict,
    ReviewTooLarge,
    bind,
    check_limit,
    read_documents,
    split_refs,
    utf16_units,
)
from service.review.llm import review_client
from service.review.model import (
    Binding,
    BoundDocument,
    BoundParagraph,
    Drop,
    Finding,
    QuestionReview,
    ReviewStatus,
)
from service.review.report import record_response, review_response
from service.review.request import ReviewInputError, check_request
from service.review.resolver import ObservedIds
from service.review.run import ReviewOutcome, overall_status, replay_id, run_review

__all__ = [
    "Binding",
    "BoundDocument",
    "BoundParagraph",
    "Drop",
    "Finding",
    "ObservedIds",
    "QuestionReview",
    "ReviewDocumentNotFound",
    "ReviewDocumentUnavailable",
    "ReviewInputError",
    "ReviewOutcome",
    "ReviewScopeConflict",
    "ReviewStatus",
    "ReviewTooLarge",
    "bind",
    "check_limit",
    "check_request",
    "overall_status",
    "read_documents",
    "record_response",
    "replay_id",
    "review_client",
    "review_response",
    "run_review",
    "split_refs",
    "utf16_units",
]
