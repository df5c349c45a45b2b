"""Sandbox providers, one module each; importing this package registers them all.

Every module here is imported (in name order) and registers its class with
``@register("name")`` from :mod:`specdefects.execution.base`; adding a provider is adding
a file.  A provider that lives in another package registers through the entry-point group
``specdefects.sandboxes`` (``name = "package.module:ProviderClass"``), loaded here too.
Module level imports only the standard library and the light registry (the CLI imports this
package to list ``--sandbox`` choices): a provider's heavy client library is imported where it
is used.
"""

import importlib
import pkgutil

from ...registry import load_entry_point_group
from ..base import PROVIDERS, register

ENTRY_POINT_GROUP = "specdefects.sandboxes"

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_mod}")


def _add_provider(cls, name: str) -> None:
    if name not in PROVIDERS:  # a name of ours (or an earlier plugin's) is not taken over
        register(name)(cls)


# the providers other installed packages declare; one that does not load, or is no Sandbox subclass, is a
# warning naming it (it must not break the providers that work)
load_entry_point_group(ENTRY_POINT_GROUP, _add_provider, what="sandbox provider")
