"""Schemathesis against the ASGI app (issue 11): generated requests for every operation of
the OpenAPI schema, fixed seed, bounded examples; no 5xx, every status documented, every
body conformant to its declared schema (the response models and the one error model)."""

from __future__ import annotations

import warnings

import hypothesis
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.checks import not_a_server_error

from eqattn.api.app import create_app
from eqattn.api.engine import Engine

EXAMPLES = 30  # per operation: about 200 requests in all
APP = create_app(Engine(heavy=2, light=2, deadline_s=20.0))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    schema = schemathesis.openapi.from_asgi("/openapi.json", APP)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
STATUSES: dict[int, int] = {}  # what the fuzzer got back (printed with -s by the summary test)


@schema.parametrize()
@hypothesis.seed(20261130)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_api_conforms_to_its_schema(case):
    response = case.call()
    STATUSES[response.status_code] = STATUSES.get(response.status_code, 0) + 1
    case.validate_response(response, checks=CHECKS)


def test_zz_the_fuzzer_ran_and_saw_no_5xx():
    """Runs after the fuzzing above (file order): requests were made and none was a 5xx."""
    print(f"schemathesis: {sum(STATUSES.values())} requests, statuses {dict(sorted(STATUSES.items()))}")
    assert sum(STATUSES.values()) >= 6 * 10
    assert not any(code >= 500 for code in STATUSES)
