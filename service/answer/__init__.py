"""The answer stages: evidence sentences, sufficiency and answerability, the judge, composition,
the release review and claim checks."""
