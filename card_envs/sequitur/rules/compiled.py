"""Whether Sequitur uses its compiled kernels.

setup.py compiles every ``.pyx`` file at install: here the word search (``rules/_spelling.pyx``)
and the observation (``_observe.pyx``), each beside its Python reference, the spec it must match
and the fallback where the extension is not built. ``CARD_ENVS_PURE_PYTHON=1`` in the environment
when Sequitur is first imported makes it use the references alone (to check them, or to debug
the rules in Python); it is read once.
"""

from __future__ import annotations

import os

PURE_PYTHON = os.environ.get("CARD_ENVS_PURE_PYTHON", "") == "1"
