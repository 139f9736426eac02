"""Schemathesis against the ASGI app: generated requests for every operation of the OpenAPI
schema, valid ones and invalid ones (negative mode: wrong types, out-of-range numbers, missing
and extra fields), fixed seed, bounded examples. No 5xx, every status and header documented
(405 carries Allow), every body conformant to its declared schema (the response models and
the one error model), and schema-violating requests rejected (strict types, no coercion).

`make test` runs a small fixed-seed pass. The long run (>= 3,000 requests, 3 seeds) is
`benchmarks/fuzz_api.py`, which runs this file with EQATTN_FUZZ_EXAMPLES and EQATTN_FUZZ_SEED.
"""

from __future__ import annotations

import os
import warnings

import hypothesis
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from eqattn.api.app import create_app
from eqattn.api.engine import Engine

EXAMPLES = int(os.environ.get("EQATTN_FUZZ_EXAMPLES", "6"))  # per operation and mode, with the boundary-value phase: about 900 requests
SEED = int(os.environ.get("EQATTN_FUZZ_SEED", "20261130"))
APP = create_app(Engine(heavy=2, light=2, search=1, deadline_s=20.0))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          allow_header_conformance, negative_data_rejection]
STATUSES: dict[int, int] = {}  # what the fuzzer got back (printed with -s by the summary test)
OPERATIONS: set[str] = set()


@schema.parametrize()
@hypothesis.seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_api_conforms_to_its_schema(case):
    response = case.call()
    STATUSES[response.status_code] = STATUSES.get(response.status_code, 0) + 1
    OPERATIONS.add(f"{case.method} {case.path}")
    case.validate_response(response, checks=CHECKS)


def test_zz_the_fuzzer_ran_and_saw_no_5xx():
    """Runs after the fuzzing above (file order): requests were made to every operation and none was a 5xx."""
    print(f"schemathesis seed {SEED}: {sum(STATUSES.values())} requests over {len(OPERATIONS)} operations, "
          f"statuses {dict(sorted(STATUSES.items()))}")
    documented = {f"{m.upper()} {p}" for p, ops in APP.openapi()["paths"].items() for m in ops}
    assert documented <= OPERATIONS  # every documented operation (and the undocumented methods: 405 with Allow)
    assert sum(STATUSES.values()) >= 2 * len(documented) * min(EXAMPLES, 10)
    assert not any(code >= 500 for code in STATUSES)
