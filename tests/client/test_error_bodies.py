"""Error bodies read through the service's ErrorObject; unexpected answers keep their status."""

from __future__ import annotations

import httpx
import pytest

from lyt_toolkit.client import ClientConfig
from lyt_toolkit.client._core import Call, RequestCore, decoder, error_object
from lyt_toolkit.errors import (
    APIError,
    APIResponseValidationError,
    LytError,
    NotFoundError,
    ServerError,
)
from lyt_toolkit.models import Reward

CALL: Call[object] = Call("GET", "/v2/loyalties/rewards")


def answer(status: int, **kwargs: object) -> httpx.Response:
    request = httpx.Request("GET", "https://api.example.com/v2/loyalties/rewards")
    return httpx.Response(status, request=request, **kwargs)  # type: ignore[arg-type]


def core() -> RequestCore:
    return RequestCore(ClientConfig.resolve(base_url="https://api.example.com", env_file=None))


def test_error_object_fields_reach_the_exception() -> None:
    body = {
        "code": 404,
        "key": "not_found",
        "message": "Resource not found",
        "details": "Cannot find reward with id lrew_1",
        "request_id": "req_1",
        "resource_id": "lrew_1",
        "resource_type": "reward",
    }
    error = core().error(CALL, answer(404, json=body))
    assert isinstance(error, NotFoundError)
    assert (error.key, error.resource_id, error.request_id) == ("not_found", "lrew_1", "req_1")


def test_html_body_keeps_the_status_and_reason() -> None:
    error = core().error(CALL, answer(502, text="<html>bad gateway</html>"))
    assert isinstance(error, ServerError)
    assert (error.status, error.message, error.key) == (502, "Bad Gateway", None)


def test_json_that_is_not_an_error_object_keeps_the_status() -> None:
    error = core().error(CALL, answer(418, json=["not", "an", "object"]))
    assert type(error) is APIError
    assert error.status == 418


def test_partial_error_object_keeps_what_it_has() -> None:
    found = error_object(404, "Not Found", {"message": "gone", "key": None})
    assert (found.code, found.message, found.key) == (404, "gone", None)


def test_body_of_the_wrong_shape_is_a_response_validation_error() -> None:
    with pytest.raises(APIResponseValidationError) as info:
        decoder(Reward)(answer(200, json={"id": 5}))
    assert (info.value.status, info.value.path) == (200, "/v2/loyalties/rewards")


def test_response_validation_error_is_a_lyt_error_not_an_api_error() -> None:
    assert issubclass(APIResponseValidationError, LytError)
    assert not issubclass(APIResponseValidationError, APIError)
