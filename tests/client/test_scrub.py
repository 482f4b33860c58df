"""The client's scrubber masks every credential it holds wherever an exception carries it."""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote_plus

import httpx
import pytest

from lyt_toolkit import _secret
from lyt_toolkit._secret import secret_forms
from lyt_toolkit.cli._common import scrub
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client._scrub import MASK, Scrubber
from lyt_toolkit.errors import APIConnectionError, BadRequestError
from lyt_toolkit.sandbox import Sandbox

SECRET = "tok/SECRET+42"


def scrubber() -> Scrubber:
    return Scrubber(lambda: [SECRET])


def test_the_message_and_repr_are_masked() -> None:
    exc = scrubber().exception(BadRequestError(400, f"you sent {SECRET}", details=SECRET))
    assert SECRET not in str(exc) + repr(exc)
    assert MASK in str(exc)


def test_a_nested_body_is_masked_keys_included() -> None:
    body = {"echo": [{"headers": {SECRET: f"Bearer {SECRET}"}}]}
    exc = scrubber().exception(BadRequestError(400, "bad", body=body))
    assert SECRET not in repr(vars(exc))


def test_the_percent_encoded_form_is_masked() -> None:
    exc = scrubber().exception(APIConnectionError("failed: /x?token=tok%2FSECRET%2B42"))
    assert "SECRET" not in str(exc)


@pytest.mark.parametrize("secret", ["tok-SECRET\n", "tok-SECRET\r\x01", "tök-SECRET"])
def test_the_forms_a_repr_shows_are_masked(secret: str) -> None:
    """h11 quotes a header it refuses as bytes: ``Illegal header value b'tok-SECRET\\n'``."""
    quoted = f"Illegal header value {secret.encode()!r}; as text {secret!r}"
    exc = Scrubber(lambda: [secret]).exception(APIConnectionError(quoted))
    assert "SECRET" not in str(exc) + repr(exc)
    assert "SECRET" not in cli_scrub_with(secret, quoted)


def cli_scrub_with(secret: str, text: str) -> str:
    """``lyt``'s ``scrub`` of ``text`` with ``secret`` as ``LYT_APP_TOKEN``."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LYT_APP_TOKEN", secret)
        env.chdir(Path(__file__).parent)  # no .env file here
        return scrub(text)


def test_lyt_masks_any_bearer_token_whole_configured_or_not() -> None:
    """A reason may quote a file holding anyone's token, in any of the forms a message quotes
    it: the token shows as ``***`` whole; a sentence about bearer tokens stays as it is."""
    text = (
        "got 'Bearer eyJhbGciOiJIUzI1NiJ9.cut-here' and bearer%20abc-123, "
        "then 'Bearer\\tx9'; a freshly issued bearer token was refused"
    )
    assert cli_scrub_with("unrelated-secret", text) == (
        "got 'Bearer ***' and bearer ***, then 'Bearer ***'; a freshly issued bearer token was"
        " refused"
    )


def test_a_chained_exception_is_masked() -> None:
    try:
        try:
            raise ValueError(f"inner {SECRET}")
        except ValueError as inner:
            raise APIConnectionError("outer") from inner
    except APIConnectionError as exc:
        scrubber().exception(exc)
        assert exc.__cause__ is not None and SECRET not in str(exc.__cause__)


def test_short_values_are_left_alone() -> None:
    exc = Scrubber(lambda: ["t"]).exception(APIConnectionError("the service timed out"))
    assert str(exc) == "the service timed out"


def test_a_client_masks_both_key_pairs_tokens_in_any_text() -> None:
    client = LoyaltyClient(
        base_url="http://127.0.0.1:9",
        app_id="app",
        app_token="app-secret-1",
        management_id="mgmt",
        management_token="mgmt-secret-2",
        env_file=None,
    )
    assert client.scrub("app-secret-1 then mgmt-secret-2") == "*** then ***"


PRINTABLE = "T0k\"en\\x y+z&<>%41'q9"


def echoed_forms(secret: str) -> list[str]:
    """The forms a server may echo ``secret`` in: JSON, form and HTML escaped."""
    return [
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote_plus(secret),
        html.escape(secret),
        html.escape(secret, quote=False),
    ]


def test_the_escaped_forms_of_a_printable_token_are_masked() -> None:
    texts = echoed_forms(PRINTABLE)
    exc = Scrubber(lambda: [PRINTABLE]).exception(APIConnectionError(" | ".join(texts)))
    for form in [PRINTABLE, *texts]:
        assert form not in str(exc)
        assert form not in cli_scrub_with(PRINTABLE, " | ".join(texts))


def test_a_server_echoing_the_token_in_an_error_body_shows_none_of_its_forms() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        token = request.headers["X-App-Token"]
        forms = echoed_forms(token)
        body = {
            "code": 400,
            "key": "bad_request",
            "message": f"bad token {forms[0]} ({forms[2]})",
            "details": f"you sent <b>{forms[3]}</b>",
            "echo": {"headers": dict(request.headers), "escaped": forms, token: [token]},
            "form": request.content.decode() + "&token=" + forms[2],
        }
        return httpx.Response(400, json=body)

    http = httpx.Client(transport=httpx.MockTransport(echo))
    client = LoyaltyClient(
        base_url="http://127.0.0.1:9",
        app_id="app",
        app_token=PRINTABLE,
        env_file=None,
        http_client=http,
    )
    with client, pytest.raises(BadRequestError) as info:
        client.oauth.token()
    http.close()
    shown = "\n".join(
        [str(info.value), repr(info.value), repr(vars(info.value)), json.dumps(info.value.body)]
    )
    assert MASK in str(info.value)
    for form in [PRINTABLE, *echoed_forms(PRINTABLE)]:
        assert form not in shown


def test_each_secrets_forms_are_its_own_however_many_were_worked_out_before() -> None:
    """The forms of a secret are worked out once and kept (``_secret._forms_of``): each
    secret still gets its own, after more secrets than are kept were worked out."""
    secrets = [f"{PRINTABLE}-{i}\n" for i in range(_secret.FORMS_KEPT + 20)]
    first = [secret_forms([s]) for s in secrets]
    again = [secret_forms([s]) for s in reversed(secrets)][::-1]
    assert first == again
    for secret, forms in zip(secrets, first, strict=True):
        assert {secret, repr(secret)[1:-1], *echoed_forms(secret)} <= set(forms)
        assert all(str(secrets.index(secret)) in form for form in forms)
    both = secret_forms(secrets[:2])
    assert set(both) == {*first[0], *first[1]}
    assert [len(f) for f in both] == sorted((len(f) for f in both), reverse=True)


def test_a_token_issued_after_many_is_masked_and_the_oldest_forgotten(sandbox: Sandbox) -> None:
    """A client issued more bearer tokens than the process keeps (``ISSUED_REMEMBERED``):
    every form of each token kept is masked in any error's text, the newest's included; the
    oldest, long expired, are no longer held."""
    with LoyaltyClient(
        base_url=sandbox.base_url, env_file=None, **sandbox.credentials.as_client_kwargs()
    ) as client:
        issued = []
        for _ in range(_secret.ISSUED_REMEMBERED + 3):
            client.fetch_token(fresh=True)
            held = client._transport.tokens.current()
            assert held is not None
            issued.append(held[0])
    kept, forgotten = issued[3:], issued[:3]
    for token in kept:
        for form in [token, *echoed_forms(token)]:
            assert str(APIConnectionError(f"echoed: {form}")) == "echoed: ***"
    for token in forgotten:
        assert token not in _secret.HELD.forms
    assert list(_secret.HELD.forms) == secret_forms([*_secret.HELD.keys, *kept])
