"""Settings come from arguments, then the environment, then a .env file."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from lyt_toolkit.client import ClientConfig, ClientSettings, LoyaltyClient, RetryConfig
from lyt_toolkit.client._core import Call, RequestCore
from lyt_toolkit.errors import ConfigurationError
from lyt_toolkit.snapshot import public_url

BASE = "https://{cluster}.example.com"


def test_arguments_win_over_environment_and_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "LYT_BASE_URL=https://file.example.com\nLYT_APP_ID=file-id\n"
        "LYT_APP_TOKEN=file-token\nLYT_CLUSTER=as1.api\n"
    )
    env = {"LYT_APP_ID": "env-id"}
    config = ClientConfig.resolve(app_token="arg-token", env=env, env_file=env_file)
    assert config.app_id == "env-id"
    assert config.app_token is not None and config.app_token.get_secret_value() == "arg-token"
    assert config.base_url == "https://file.example.com"
    assert config.cluster == "as1.api"


def test_env_file_does_not_touch_os_environ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LYT_MANAGEMENT_ID", raising=False)
    env_file = tmp_path / ".env"
    env_file.write_text("LYT_BASE_URL=https://x.example.com\nLYT_MANAGEMENT_ID=from-file\n")
    config = ClientConfig.resolve(env={}, env_file=env_file)
    assert config.management_id == "from-file"
    import os

    assert "LYT_MANAGEMENT_ID" not in os.environ


def test_cluster_fills_the_base_url() -> None:
    config = ClientConfig.resolve(base_url=BASE, cluster="us1.api", env={}, env_file=None)
    assert config.resolved_base_url == "https://us1.api.example.com"
    default = ClientConfig.resolve(base_url=BASE + "/", env={}, env_file=None)
    assert default.resolved_base_url == "https://api.example.com"


def test_the_base_url_is_normalised_once_and_paths_join_below_it() -> None:
    config = ClientConfig.resolve(
        base_url=BASE + "/prefix//", app_id="a", app_token="t", env={}, env_file=None
    )
    assert config.url == httpx.URL("https://api.example.com/prefix/")
    assert config.resolved_base_url == "https://api.example.com/prefix"
    request = RequestCore(config).build(Call("GET", "/v1/members/a%2Fb", params=(("q", "1"),)))
    assert request.url == httpx.URL("https://api.example.com/prefix/v1/members/a%2Fb?q=1")


@pytest.mark.parametrize(
    ("base_url", "path", "params", "url"),
    [
        ("http://[::1]:8000/p/", "/v1/members/a%2Fb", (), "http://[::1]:8000/p/v1/members/a%2Fb"),
        (
            "HTTPS://API.Example.com:443//",
            "/v1/x?limit=5",
            (),
            "https://api.example.com/v1/x?limit=5",
        ),
        (
            "https://api.example.com/pre%20fix",
            "/v1/members",
            (("cursor", "a b&c=d/é+"), ("limit", "100")),
            "https://api.example.com/pre%20fix/v1/members?cursor=a+b%26c%3Dd%2F%C3%A9%2B&limit=100",
        ),
        (
            "https://api.example.com",
            "/v1/members/ü",
            (("q", ""),),
            "https://api.example.com/v1/members/%C3%BC?q=",
        ),
    ],
)
def test_a_request_goes_to_its_path_below_the_base_with_its_query(
    base_url: str, path: str, params: tuple[tuple[str, str], ...], url: str
) -> None:
    config = ClientConfig.resolve(
        base_url=base_url, app_id="a", app_token="t", env={}, env_file=None
    )
    assert str(RequestCore(config).build(Call("GET", path, params=params)).url) == url


def test_the_requests_of_one_path_each_carry_their_own_query_only() -> None:
    config = ClientConfig.resolve(base_url=BASE, app_id="a", app_token="t", env={}, env_file=None)
    core = RequestCore(config)
    queries = ((("cursor", "a"),), (), (("cursor", "b"), ("limit", "2")), ())
    urls = [str(core.build(Call("GET", "/v1/members", params=q)).url) for q in queries]
    members = "https://api.example.com/v1/members"
    assert urls == [f"{members}?cursor=a", members, f"{members}?cursor=b&limit=2", members]


def test_unknown_cluster_is_named() -> None:
    with pytest.raises(ConfigurationError, match="cluster"):
        ClientConfig.resolve(base_url=BASE, cluster="eu9.api", env={}, env_file=None)


def test_missing_base_url_says_what_to_set() -> None:
    with pytest.raises(ConfigurationError, match="LYT_BASE_URL"):
        ClientConfig.resolve(env={}, env_file=None)


def test_bad_base_url_is_named() -> None:
    with pytest.raises(ConfigurationError, match="base_url"):
        ClientConfig.resolve(base_url="ftp://nope", env={}, env_file=None)


@pytest.mark.parametrize(
    "base_url",
    [
        "https://api.example.com/prefix?key=1",
        "https://api.example.com/prefix?",
        "https://api.example.com/prefix#top",
        "http://[::1",
        "http://xn--/",
        "https://api.example.com\n",
        "http://api.example.com:99999",
        "http://api.example.com:-1",
        "http://api.example.com:port",
    ],
)
def test_a_base_url_a_path_cannot_be_joined_to_is_named(base_url: str) -> None:
    with pytest.raises(ConfigurationError, match="base_url") as info:
        ClientConfig.resolve(base_url=base_url, env={}, env_file=None)
    error = info.value  # httpx's or idna's error is not chained: the message says it all
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


def test_an_ipv6_base_url_keeps_its_brackets() -> None:
    config = ClientConfig.resolve(base_url="http://[::1]:8000/", env={}, env_file=None)
    assert config.resolved_base_url == "http://[::1]:8000"
    assert public_url(config.resolved_base_url) == "http://[::1]:8000"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:pw@[::1]:8000/v1/?q=1#f", "http://[::1]:8000/v1"),
        ("https://user@API.example.com:99999/", "https://api.example.com:99999"),
        ("https://api.example.com:port", "https://api.example.com:port"),
    ],
)
def test_public_url_keeps_the_host_as_written_without_the_user(url: str, shown: str) -> None:
    assert public_url(url) == shown


def test_unknown_scope_is_named() -> None:
    with pytest.raises(ConfigurationError, match="scopes"):
        ClientConfig.resolve(base_url=BASE, scopes=["loyalty"], env={}, env_file=None)


def test_one_scope_may_be_given_as_a_string() -> None:
    config = ClientConfig.resolve(base_url=BASE, scopes="loyalties", env={}, env_file=None)
    assert config.scopes == ("loyalties",)
    with pytest.raises(ConfigurationError, match="scopes"):
        ClientConfig.resolve(base_url=BASE, scopes=5, env={}, env_file=None)  # type: ignore[arg-type]


def test_retry_config_is_checked() -> None:
    with pytest.raises(ConfigurationError):
        RetryConfig(max_attempts=0)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0, -1, "5"])
def test_a_timeout_that_is_not_a_positive_number_is_named(value: object) -> None:
    with pytest.raises(ConfigurationError, match="timeout"):
        ClientConfig.resolve(base_url=BASE, timeout=value, env={}, env_file=None)  # type: ignore[arg-type]


def test_a_non_finite_retry_budget_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="finite"):
        RetryConfig(total_timeout=float("nan"))


def test_max_pages_below_one_is_named() -> None:
    with pytest.raises(ConfigurationError, match="max_pages"):
        ClientConfig.resolve(base_url=BASE, max_pages=0, env={}, env_file=None)


def test_client_uses_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LYT_BASE_URL", "https://{cluster}.example.com")
    monkeypatch.setenv("LYT_CLUSTER", "download")
    with LoyaltyClient(env_file=None) as client:
        assert client.base_url == "https://download.example.com"


def test_unknown_setting_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="base_urll"):
        LoyaltyClient(base_urll=BASE, env_file=None)  # type: ignore[call-arg]


def test_client_settings_name_every_resolved_setting() -> None:
    assert set(ClientSettings.__optional_keys__) == {
        "base_url",
        "cluster",
        "app_id",
        "app_token",
        "management_id",
        "management_token",
        "scopes",
        "timeout",
        "retry",
        "max_pages",
        "max_wait",
        "rate",
        "cycle_calls",
        "env_file",
    }


def test_env_file_defaults_to_dotenv_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("LYT_BASE_URL=https://dotenv.example.com\n")
    monkeypatch.chdir(tmp_path)
    assert ClientConfig.resolve(env={}).base_url == "https://dotenv.example.com"


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        ("http://user:pa55-SECRET@127.0.0.1:9/", "http://127.0.0.1:9/"),
        ("https://pa55-SECRET@{cluster}.example.com", "https://{cluster}.example.com"),
        ("https://user:pa55-SECRET@api.example.com:99999/x", "https://api.example.com:99999/x"),
        ("http://u:pa55-SECRET@[::1", "http://[::1"),
        ("user:pa55-SECRET@api.example.com", "api.example.com"),
    ],
)
def test_a_base_url_with_user_info_is_refused_without_showing_it(base_url: str, shown: str) -> None:
    refusals = [
        lambda: LoyaltyClient(base_url=base_url, env_file=None),
        lambda: ClientConfig.resolve(base_url=base_url, env={}, env_file=None),
        lambda: ClientConfig.resolve(env={"LYT_BASE_URL": base_url}, env_file=None),
    ]
    for refuse in refusals:
        with pytest.raises(ConfigurationError, match="base_url") as info:
            refuse()
        text = str(info.value) + repr(info.value) + repr(vars(info.value))
        assert "SECRET" not in text
        assert repr(shown) in str(info.value)
