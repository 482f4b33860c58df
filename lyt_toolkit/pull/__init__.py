"""Turning list walks into frames: one home for the read path.

- ``read_ahead``: the next pages on their way while the caller works on the current one
  (``sent``: a fetch tells its read-ahead once its request is written);
- ``member_tree``: the walk down programs, members, cards and pending buckets, declared
  once and carried out by sync and async drivers (the snapshot pull, the program-wide
  bucket frame and the pull's cost estimate all walk it);
- ``program_lists``: the top-level lists (rewards, benefits, card definitions, tier
  structures), declared once for the snapshot pull and its estimate;
- ``windows``: a long list walked in ``created_at`` windows at once, joined in its order
  (``awalk_windows``; ``windowed_lists`` walks the member tree's lists so);
- ``pages``, ``json_values``, ``reward_pages`` and ``reward_arrow``: pages decoded into
  columns (natively, model-free, or from models where those refuse a page);
- ``assemble``: frames built from pages as they arrive (``client.rewards.frame()`` and
  friends land there).

Importing this package (or ``read_ahead``, ``member_tree``, ``program_lists``, ``pages``,
``windows``) loads neither pandas nor pyarrow; the decoding and assembling modules do, when
a frame is built.
"""

from .member_tree import TREE, MemberTree, awalk_tree, member_tree, walk_tree
from .pages import PlainPage
from .program_lists import PROGRAM_LISTS, ProgramList
from .read_ahead import aread_ahead, read_ahead
from .windows import awalk_windows, windowed_lists

__all__ = [
    "PROGRAM_LISTS",
    "TREE",
    "MemberTree",
    "PlainPage",
    "ProgramList",
    "aread_ahead",
    "awalk_tree",
    "awalk_windows",
    "member_tree",
    "read_ahead",
    "walk_tree",
    "windowed_lists",
]
