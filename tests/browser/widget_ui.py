"""One helper per widget: find it on the page by what a person sees, fill it, click it.

Each helper knows its widget's labels and buttons and nothing of its Python
attributes, so when a widget's layout changes only its helper changes.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

RESULT_TIMEOUT_MS = 30_000


def button(root: Page | Locator, label: str) -> Locator:
    """The button labelled ``label``; an icon's glyph before the label is allowed for."""
    return root.get_by_role("button", name=re.compile(rf"^\W*{re.escape(label)}$"))


def widget_showing(page: Page, label: str) -> Locator:
    """The widget output holding a button labelled ``label``."""
    return page.locator(".jp-OutputArea-output").filter(has=button(page, label))


def type_into(field: Locator, text: str) -> None:
    """Click the field, erase what it holds, type ``text``, leave with Tab."""
    field.click()
    field.press("Control+a")
    field.press("Backspace")
    field.press_sequentially(text)
    field.press("Tab")
    expect(field).to_have_value(text)


def grid_rows(widget: Locator, text: str) -> Locator:
    """The rows of the widget's grids that mention ``text``, in page order."""
    return widget.locator("table.dataTable tbody tr").filter(has_text=text)


def result_row(widget: Locator, text: str) -> Locator:
    """The row that mentions ``text`` in the widget's last grid showing it (its results)."""
    return grid_rows(widget, text).last


def click_grid_row(widget: Locator, text: str, *, add: bool = False) -> None:
    """Select the one grid row mentioning ``text`` with a click, as a person would
    (``add``: a Ctrl+click, which keeps the rows already selected)."""
    row = grid_rows(widget, text)
    try:
        expect(row).to_have_count(1, timeout=RESULT_TIMEOUT_MS)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{showing(widget)}") from exc
    row.locator("td").first.click(modifiers=["Control"] if add else None)
    expect(row).to_have_class(re.compile(r"\bselected\b"))


def showing(widget: Locator, most: int = 3_000) -> str:
    """What ``widget`` shows as text (its status line, its grids' rows), for a failure's
    message: the screenshot stays on the machine that ran the test, this reaches its log."""
    text = widget.inner_text(timeout=5_000)
    cut = f"\n... ({len(text) - most:,} characters more)" if len(text) > most else ""
    return f"the widget shows:\n{text[:most]}{cut}"


def select_options(select: Locator, *texts: str) -> None:
    """Select the options of ``select`` whose labels contain ``texts`` (the others are
    deselected), as a click, or a Ctrl+click each, would."""
    labels = []
    for text in texts:
        option = select.locator("option").filter(has_text=text)
        expect(option).to_have_count(1, timeout=RESULT_TIMEOUT_MS)
        labels.append(option.inner_text())
    select.select_option(label=labels)


def expect_status(widget: Locator, text: str) -> None:
    expect(widget).to_contain_text(text, timeout=RESULT_TIMEOUT_MS)


class BenefitFormUI:
    def __init__(self, page: Page) -> None:
        self.root = widget_showing(page, "Create benefit")

    def fill(self, *, name: str, type_: str, points: int, status: str) -> None:
        type_into(self.root.get_by_label("Name", exact=True), name)
        self.root.get_by_label("Type", exact=True).select_option(type_)
        type_into(self.root.get_by_label("Points", exact=True), str(points))
        self.root.get_by_label("Status", exact=True).select_option(status)

    def choose_card_definition(self, name: str) -> None:
        select_options(self.root.get_by_label("Card definition", exact=True), name)

    def submit(self) -> None:
        button(self.root, "Create benefit").click()

    def field_error(self, label: str) -> Locator:
        """The error shown beside the field labelled ``label``."""
        return self.root.locator(".widget-hbox").filter(
            has=self.root.page.get_by_label(label, exact=True)
        )


class BulkImportUI:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = widget_showing(page, "Create valid rows")

    def upload(self, csv: Path) -> None:
        """Clear the path box, then choose ``csv`` through the upload button's file dialog."""
        type_into(self.root.get_by_placeholder(re.compile("^or a path")), "")
        with self.page.expect_file_chooser() as chooser:
            self.root.get_by_role("button", name="Upload CSV").click()
        chooser.value.set_files(str(csv))

    def create_valid_rows(self) -> None:
        button(self.root, "Create valid rows").click()


class RewardDraftUI:
    def __init__(self, page: Page) -> None:
        self.root = widget_showing(page, "Move to draft")

    def load(self, name_contains: str) -> None:
        type_into(self.root.get_by_label("Name contains", exact=True), name_contains)
        button(self.root, "Load rewards").click()

    def select(self, reward_id: str) -> None:
        click_grid_row(self.root, reward_id)

    def confirm(self) -> None:
        self.root.get_by_label("I understand these go back to DRAFT").check()

    @property
    def move_button(self) -> Locator:
        return button(self.root, "Move to draft")


class PendingPointsUI:
    def __init__(self, page: Page) -> None:
        self.root = widget_showing(page, "Activate selected")

    def choose(self, label: str, containing: str) -> None:
        """Pick the option of dropdown ``label`` whose text contains ``containing``."""
        select_options(self.root.get_by_label(label, exact=True), containing)

    def select_bucket(self, bucket_id: str) -> None:
        click_grid_row(self.root, bucket_id)

    def activate(self) -> None:
        button(self.root, "Activate selected").click()


class DangerZoneUI:
    def __init__(self, page: Page) -> None:
        self.page = page
        # Two "Delete" buttons: the widget is the output that also names both sections.
        self.root = page.locator(".jp-OutputArea-output").filter(
            has=page.get_by_text("Tier structures", exact=True)
        )

    def section(self, title: str) -> Locator:
        heading = self.root.get_by_text(title, exact=True)
        return heading.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]")

    def select(self, title: str, *ids: str) -> None:
        """Select the rows of section ``title``'s grid that hold ``ids``: a click on the
        first, a Ctrl+click on each other."""
        for position, resource_id in enumerate(ids):
            click_grid_row(self.section(title), resource_id, add=position > 0)

    def choose_project(self, containing: str) -> None:
        """Pick the project whose name contains ``containing``; its webhooks load."""
        select_options(self.root.get_by_label("Project", exact=True), containing)

    def phrase(self, title: str) -> Locator:
        return self.section(title).locator("code")

    def confirm(self, title: str, phrase: str) -> None:
        type_into(self.section(title).get_by_placeholder("type the phrase shown above"), phrase)

    def delete_button(self, title: str) -> Locator:
        return button(self.section(title), "Delete")


class FindingsUI:
    def __init__(self, page: Page) -> None:
        self.root = widget_showing(page, "Act on selected")

    def select(self, resource_id: str) -> None:
        """Select the finding about ``resource_id`` with a click on its row."""
        click_grid_row(self.root, resource_id)

    @property
    def preview_button(self) -> Locator:
        return button(self.root, "Preview")

    @property
    def act_button(self) -> Locator:
        return button(self.root, "Act on selected")


class EditPanelUI:
    """The edit panel. Its grid is drawn on a canvas, so a cell is reached as a person
    reaches it: a click on the first cell, the arrow keys to the cell, then typing, which
    opens the cell's editor as in a spreadsheet."""

    ROW_HEADER, ROW_HEIGHT = 64, 20
    """The grid's row header width and row height in pixels (ipydatagrid's defaults)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = widget_showing(page, "Rehearse")

    def choose_frame(self, kind: str) -> None:
        """Choose ``kind`` in the Frame dropdown, and wait for its grid."""
        self.root.get_by_label("Frame", exact=True).select_option(kind)
        expect(self.grid(kind)).to_have_count(1, timeout=RESULT_TIMEOUT_MS)

    def grid(self, kind: str) -> Locator:
        """The editable grid showing the frame ``kind`` (its element's class names it)."""
        return self.root.locator(f".lyt-edit-{kind}.lm-DataGrid, .lyt-edit-{kind} .lm-DataGrid")

    def edit_cell(self, kind: str, row: int, column: int, text: str) -> None:
        """Type ``text`` into the cell ``row`` rows down and ``column`` columns right of the
        first one of frame ``kind``'s grid, replacing what it holds; Enter commits it."""
        grid = self.grid(kind)
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        assert box is not None
        self.page.mouse.click(
            box["x"] + self.ROW_HEADER + 10, box["y"] + self.ROW_HEIGHT + self.ROW_HEIGHT / 2
        )
        for key, times in (("ArrowDown", row), ("ArrowRight", column)):
            for _ in range(times):
                self.page.keyboard.press(key)
        self.page.keyboard.type(text[0])
        editor = self.root.locator("input.lm-DataGrid-cellEditorInput")
        expect(editor).to_be_focused()
        expect(editor).to_have_value(text[0])
        editor.press_sequentially(text[1:])
        editor.press("Enter")
        expect(editor).to_have_count(0)

    @property
    def plan_button(self) -> Locator:
        return button(self.root, "Plan")

    @property
    def apply_button(self) -> Locator:
        return button(self.root, "Apply")


class WhatIfPanelUI:
    """The what-if panel: a dropdown, two sliders moved with the keyboard as a person
    does (a click on the handle, then the arrow keys), and its figures' tables."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = widget_showing(page, "Plan these values")

    def choose_card_definition(self, containing: str) -> None:
        select_options(self.root.get_by_label("Card definition", exact=True), containing)

    def slider(self, label: str) -> Locator:
        """The handle of the slider labelled ``label``."""
        return self._slider_row(label).get_by_role("slider")

    def readout(self, label: str) -> Locator:
        """The value the slider labelled ``label`` shows beside it."""
        return self._slider_row(label).locator(".widget-readout")

    def _slider_row(self, label: str) -> Locator:
        return self.root.locator(".widget-slider").filter(has_text=label)

    def press(self, label: str, key: str, times: int) -> None:
        """Click the handle of slider ``label``, then press ``key`` ``times`` times."""
        handle = self.slider(label)
        handle.click()
        for _ in range(times):
            handle.press(key)

    def figure(self, name: str) -> Locator:
        """The cells (figure, before, after, change) of the row showing figure ``name``."""
        return self.root.locator(f'tr[data-figure="{name}"]').first.locator("td")
