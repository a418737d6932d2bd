"""``c4book serve``: the opening explorer in a browser, its JSON API, and Pons' ``/solve``.

``app.create_app`` builds the Starlette app over an open book; ``server.serve``
runs it with uvicorn.  Needs the ``serve`` extra: ``pip install 'c4book[serve]'``.
"""

from .app import create_app
from .server import serve

__all__ = ["create_app", "serve"]
