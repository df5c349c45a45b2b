"""specdefects: defective task descriptions and test-following for code LLMs.

The data model lives in :mod:`specdefects.records`; source benchmarks in
:mod:`specdefects.sources`; the sandbox in :mod:`specdefects.execution`.
"""

__version__ = "0.1.0"
