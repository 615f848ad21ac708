"""Build-time code of the site, a package installed with the project (``pip install -e .``).

MkDocs hooks (``mkdocs.yml``): ``hooks`` (figures, build stamp, what ``serve --dirty`` rebuilds),
``fences`` (the pages' code run once, outputs cached, every fence recorded), ``i18n`` (the Chinese
edition). ``figures`` draws ``plots/`` and ``diagrams/``; ``griffe_shapes`` formats the API page;
``cache`` holds ``package_hash``, the key of every cache; ``run`` runs MkDocs for tests and scripts.
"""
