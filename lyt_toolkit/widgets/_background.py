"""Loading in the background: widgets read the service in a worker thread, never in
their constructor, so the kernel stays free."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._messages import describe_error
from ._options import option_values

if TYPE_CHECKING:
    from ipywidgets import Dropdown

__all__ = ["LOADING", "LoadsWhenShown", "join_worker"]


class LoadsWhenShown:
    """Mixin of widgets that read the service: never in the constructor, but in
    :meth:`refresh`, started in a background thread on the first display and by a
    Refresh button (:meth:`refresh_in_background`), so the kernel stays free while a
    long list loads. A choice that lists something new (a project's webhooks, a
    member's cards) loads the same way (:meth:`load_in_background`). Called directly,
    :meth:`refresh` loads in the calling thread.

    The rule of choices and loads: a choice's handler takes what the choice asks for (the
    widget keeps it as :meth:`_latest_choice`, under :attr:`_choosing`) and starts the load
    with it; a load, in whatever thread (a load's, a batch's reload), reads no control (what
    it needs of a box or checkbox is ``_taken.Taken`` as it is set) and shows what it read,
    or writes a control, only through :meth:`_shows`, which shows nothing once a later choice
    asks for something else."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._choosing = threading.RLock()
        """Held while a choice is taken (or refused) and while a load shows what it read: a
        load's dropdown options and a choice never interleave."""
        super().__init__(*args, **kwargs)

    _shown = False
    _loading = False
    _loader: threading.Thread | None = None
    _putting_back: threading.Thread | None = None
    """The thread putting a refused choice back, while it does: its own change of the
    dropdown is no choice."""

    def refresh(self) -> None:
        """Load what the widget lists from the service (nothing by default)."""

    @property
    def loading(self) -> bool:
        """True while a background load runs (until the widget shows its end)."""
        return self._loading

    def _refuses_loads(self) -> bool:
        """True while a load runs in another thread: :meth:`load_in_background` would start
        nothing (a choice that opens a list is refused then)."""
        return self._loading and threading.current_thread() is not self._loader

    def _latest_choice(self) -> tuple[object, ...]:
        """What the latest choice asks the widget to list, as its handler took it (subclasses
        whose choices open lists: a program, member and card; a project)."""
        return ()

    def _shows(self, inputs: tuple[object, ...], show: Callable[[], None]) -> bool:
        """The one way a load shows what it read: ``show()`` runs, under :attr:`_choosing`,
        while ``inputs`` (what the load was started for) still lead :meth:`_latest_choice`;
        once a later choice asks for something else nothing is shown (False): that choice
        lists its own."""
        with self._choosing:
            if self._latest_choice()[: len(inputs)] != inputs:
                return False
            show()
            return True

    def _choice_refused(self, choice: Dropdown, shown: object, why: str) -> bool:
        """Whether a change of ``choice`` (a dropdown whose choice starts a load) is no choice
        to act on. While a load runs in another thread it is refused: ``choice`` shows
        ``shown`` again (the value whose list the widget shows or is loading; unless the load
        has replaced the options meanwhile, and ``shown`` is no longer one), its rows kept,
        and ``why`` shows as a load's error. The change putting it back is ignored: it reads
        nothing and refuses nothing again."""
        if self._putting_back is threading.current_thread():
            return True
        with self._choosing:
            if not self._refuses_loads():
                return False
            if shown in option_values(choice):
                self._putting_back = threading.current_thread()
                try:
                    choice.value = shown
                finally:
                    self._putting_back = None
        self.show_load_error(why)
        return True

    def refresh_in_background(self) -> bool:
        """Start :meth:`refresh` in a background thread; False (nothing started) while a
        load already runs. The widget shows that it is loading until the load ends."""
        return self.load_in_background(self.refresh)

    def load_in_background(self, load: Callable[[], object]) -> bool:
        """Start ``load`` in a background thread; False (nothing started) while another
        load runs. Called from within a load (an observer fired by it), ``load`` runs
        at once, as part of that load."""
        if self._refuses_loads():
            return False
        if threading.current_thread() is self._loader:
            load()
            return True
        self._loading = True
        self.show_loading(True)
        self._loader = threading.Thread(
            target=self._load, args=(load,), name=f"lyt-load-{type(self).__name__}", daemon=True
        )
        self._loader.start()
        return True

    def _load(self, load: Callable[[], object]) -> None:
        try:
            load()
        except Exception as exc:  # a thread's exception would only reach stderr
            self.show_load_error(f"Could not load: {describe_error(exc)}")
        finally:
            self._loading = False
            self.show_loading(False)

    def show_loading(self, loading: bool) -> None:
        """Show that a load starts or ended (subclasses: a note, disabled buttons)."""

    def show_load_error(self, text: str) -> None:
        """Show ``text``, a load's failure or refusal (subclasses)."""

    def wait(self, timeout: float | None = 120) -> None:
        """Block until the background load (if any) has ended and the widget shows it."""
        join_worker(self._loader, timeout, "the load")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if not self._shown:
            self._shown = True
            self.refresh_in_background()
        return super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]


def join_worker(thread: threading.Thread | None, timeout: float | None, what: str) -> None:
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)
        if thread.is_alive():
            raise TimeoutError(f"{what} was still running after {timeout} s")


LOADING = "Loading…"
"""The status while a background load runs."""
