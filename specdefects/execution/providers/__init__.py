"""Sandbox providers, one module each; importing this package registers them all.

Every module here is imported (in name order) and registers its class with
``@register("name")`` from :mod:`specdefects.execution.base`; adding a provider is adding
a file.  A provider that lives in another package registers through the entry-point group
``specdefects.sandboxes`` (``name = "package.module:ProviderClass"``), loaded here too.
Module level stays stdlib-only (the CLI imports this package to list ``--sandbox``
choices): a provider's heavy client library is imported where it is used.
"""

import importlib
import logging
import pkgutil
from importlib.metadata import entry_points

from ..base import PROVIDERS, Sandbox

ENTRY_POINT_GROUP = "specdefects.sandboxes"
log = logging.getLogger(__name__)

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_mod}")


def load_entry_points() -> list[str]:
    """Register the providers other installed packages declare in ``specdefects.sandboxes``; an entry
    point that fails to load, or names no Sandbox subclass, is skipped with a warning (it must not break
    the providers that work). Returns the names added."""
    added = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in PROVIDERS:
            continue
        try:
            cls = ep.load()
        except Exception as e:  # a broken third-party package: say so, keep the others
            log.warning("sandbox provider %r (%s) does not load: %s", ep.name, ep.value, e)
            continue
        if not (isinstance(cls, type) and issubclass(cls, Sandbox)):
            log.warning("sandbox provider %r (%s) is not a Sandbox subclass", ep.name, ep.value)
            continue
        cls.name = ep.name
        PROVIDERS[ep.name] = cls
        added.append(ep.name)
    return added


load_entry_points()
