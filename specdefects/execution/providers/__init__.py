"""Sandbox providers, one module each; importing this package registers them all.

Every module here is imported (in name order) and registers its class with
``@register("name")`` from :mod:`specdefects.execution.base`; adding a provider is adding
a file.  Module level stays stdlib-only (the CLI imports this package to list
``--sandbox`` choices): a provider's heavy client library is imported where it is used.
"""

import importlib
import pkgutil

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_mod}")
